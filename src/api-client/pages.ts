/**
 * The largest page the API serves on its connections (`first`: "At most 100 (default 20); more is
 * refused with BAD_USER_INPUT" in schema.graphql). Lists ask for pages of this size.
 */
export const PAGE_SIZE = 100;

/** One page of a Relay connection as the list documents select it. */
export interface Page<N> {
  edges: { node: N }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * Every node of a connection, page after page (each `PAGE_SIZE` long, `after` the previous page's
 * end cursor) until the API says there is no next page: a list never stops silently at one page.
 * @param fetchPage - asks for the page after `after` (undefined: the first page)
 * @throws Error when the API says there is a next page but gives no cursor to reach it (a broken connection)
 */
export async function allNodes<N>(fetchPage: (after: string | undefined) => Promise<Page<N>>): Promise<N[]> {
  const nodes: N[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage(after);
    nodes.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) return nodes;
    if (!page.pageInfo.endCursor || page.pageInfo.endCursor === after) throw new Error("the API said a list has more pages but gave no new cursor to reach them");
    after = page.pageInfo.endCursor;
  }
}
