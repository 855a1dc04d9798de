/**
 * GraphiQL that works without internet: graphql-yoga's default page loads GraphiQL, its CSS and
 * Monaco's workers from a public CDN, so a machine offline gets a blank console. The
 * `@graphql-yoga/render-graphiql` package (same version as graphql-yoga) ships the same UI with
 * every asset inlined in the page; it is rendered once per set of options and served from memory.
 * `GET /` redirects to the console.
 */
import type { GraphiQLOptions, Plugin } from "graphql-yoga";

let cached: { key: string; html: string } | undefined;

/** yoga's `renderGraphiQL` option: the self-contained page (about 9 MB, built once; the package is loaded on first use). */
export async function renderOfflineGraphiQL(options: GraphiQLOptions): Promise<string> {
  const key = JSON.stringify(options);
  if (cached?.key !== key) {
    const { renderGraphiQL } = await import("@graphql-yoga/render-graphiql");
    cached = { key, html: renderGraphiQL(options) };
  }
  return cached.html;
}

/** `GET /` → 302 to the GraphiQL page at `graphqlEndpoint`. */
export function rootRedirectPlugin(graphqlEndpoint: string): Plugin {
  return {
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname === "/" && (request.method === "GET" || request.method === "HEAD")) {
        endResponse(new fetchAPI.Response(null, { status: 302, headers: { location: graphqlEndpoint } }));
      }
    },
  };
}
