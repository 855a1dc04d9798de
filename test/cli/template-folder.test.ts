import { describe, expect, it } from "vitest";
import { pathInFolder } from "../../src/cli/template-folder.js";

describe("pathInFolder", () => {
  const settings = [{ name: "required", type: "string_list" }, { name: "mode", type: "enum" }, { type: "number" }, { name: "Not a name!", type: "number" }];

  it("names a setting of template.yaml by its name, not its position", () => {
    expect(pathInFolder("params[0].default", settings)).toBe("template.yaml settings.required.default");
    expect(pathInFolder("params[1].options[2]", settings)).toBe("template.yaml settings.mode.options[2]");
    expect(pathInFolder("params[1]", settings)).toBe("template.yaml settings.mode");
  });

  it("keeps the position of a setting without a usable name, and maps the other fields to their files", () => {
    expect(pathInFolder("params[2].name", settings)).toBe("template.yaml settings[2].name");
    expect(pathInFolder("params[3].name", settings)).toBe("template.yaml settings[3].name");
    expect(pathInFolder("params[9].default", settings)).toBe("template.yaml settings[9].default");
    expect(pathInFolder("params", settings)).toBe("template.yaml settings");
    expect(pathInFolder("sourceCode", settings)).toBe("evaluate.py");
    expect(pathInFolder("libraryPins.acme_policy", settings)).toBe("template.yaml libraryPins.acme_policy");
  });
});
