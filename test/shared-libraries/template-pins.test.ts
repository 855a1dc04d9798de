import { afterAll, describe, expect, it } from "vitest";
import { templatesHarness } from "../templates/helpers.js";
import { acmePolicy, COOKBOOK_EVALUATOR } from "./helpers.js";

const harness = templatesHarness();
afterAll(() => harness.app.close());

const PUBLISH = `mutation($input: PublishSharedLibraryVersionInput!) { publishSharedLibraryVersion(input: $input) { version { version } } }`;
const VERSION_FIELDS = `latestVersion { version libraryPins sharedImports resolvedLibraries }`;

describe("shared-library pins on template versions", () => {
  it("refuses a template that imports a library the workspace does not have, naming it", async () => {
    const ws = await harness.workspace("pins-missing");
    const { error } = await ws.createTemplate({ name: "Policy", sourceCode: COOKBOOK_EVALUATOR });
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(error?.extensions?.issues).toEqual([
      { path: "sourceCode", message: expect.stringContaining('no shared library "acme_policy"') },
    ]);
  });

  it("refuses a pin to a version that does not exist, and a malformed pin", async () => {
    const ws = await harness.workspace("pins-version");
    await ws.gql(PUBLISH, { input: { name: "acme_policy", sourceCode: acmePolicy(["guarantee"]), note: "v1" } });
    const missing = await ws.createTemplate({ name: "Policy", sourceCode: COOKBOOK_EVALUATOR, libraryPins: { acme_policy: 2 } });
    expect(missing.error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(missing.error?.extensions?.issues).toEqual([{ path: "libraryPins.acme_policy", message: expect.stringMatching(/version 2/) }]);
    const malformed = await ws.createTemplate({ name: "Policy", sourceCode: COOKBOOK_EVALUATOR, libraryPins: { Bad: "x" } });
    expect(malformed.error?.extensions?.issues).toEqual([{ path: "libraryPins.Bad", message: expect.stringContaining("shared library name") }]);
  });

  it("stores pins and imports, and shows what each import resolves to now", async () => {
    const ws = await harness.workspace("pins-resolve");
    await ws.gql(PUBLISH, { input: { name: "acme_policy", sourceCode: acmePolicy(["guarantee"]), note: "v1" } });
    await ws.gql(PUBLISH, { input: { name: "acme_policy", sourceCode: acmePolicy(["guarantee", "refund"]), note: "v2" } });

    const unpinned = await ws.gql(
      `mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id ${VERSION_FIELDS} } } }`,
      { input: { name: "Follows latest", sourceCode: COOKBOOK_EVALUATOR } },
    );
    expect(unpinned.errors).toBeUndefined();
    expect(unpinned.data?.createTemplate.template.latestVersion).toEqual({
      version: 1,
      libraryPins: {},
      sharedImports: ["acme_policy"],
      resolvedLibraries: { acme_policy: 2 },
    });

    const pinned = await ws.gql(
      `mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id ${VERSION_FIELDS} } } }`,
      { input: { name: "Pinned", sourceCode: COOKBOOK_EVALUATOR, libraryPins: { acme_policy: 1 } } },
    );
    expect(pinned.data?.createTemplate.template.latestVersion.resolvedLibraries).toEqual({ acme_policy: 1 });

    // A change of pins alone makes version N+1.
    const updated = await ws.gql(
      `mutation($input: UpdateTemplateInput!) { updateTemplate(input: $input) { template { latestVersionNumber ${VERSION_FIELDS} } } }`,
      { input: { id: pinned.data?.createTemplate.template.id, libraryPins: {} } },
    );
    expect(updated.data?.updateTemplate.template.latestVersionNumber).toBe(2);
    expect(updated.data?.updateTemplate.template.latestVersion.resolvedLibraries).toEqual({ acme_policy: 2 });
  });
});
