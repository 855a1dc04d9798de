import { describe, expect, it } from "vitest";
import { invisibleCharacterProblem, lookupNameProblem, nameSchema } from "../../src/lib/text-rules.js";
import { invalidUtf8Offset, utf8Problem } from "../../src/lib/utf8.js";

// The name rule of every door (src/lib/text-rules.ts), on values worked out by hand.
describe("the name rule", () => {
  it("refuses controls, bidirectional controls and invisible characters, naming the code point and its position", () => {
    expect(invisibleCharacterProblem("exact\u200Bmatch")).toBe("must not contain the invisible character U+200B (character 6): it makes a name display as another");
    expect(invisibleCharacterProblem("\u202Ehctam")).toBe("must not contain the bidirectional control U+202E (character 1): it makes a name display as another");
    expect(invisibleCharacterProblem("a\u2066b\u2069")).toMatch(/bidirectional control U\+2066 \(character 2\)/);
    expect(invisibleCharacterProblem("score\u200E")).toMatch(/bidirectional control U\+200E/);
    expect(invisibleCharacterProblem("soft\u00ADhyphen")).toMatch(/invisible character U\+00AD/);
    expect(invisibleCharacterProblem("\uFEFFname")).toMatch(/invisible character U\+FEFF \(character 1\)/);
    expect(invisibleCharacterProblem("\u3164")).toMatch(/invisible character U\+3164/); // Hangul filler: a "letter" that shows nothing
    expect(invisibleCharacterProblem("line\nbreak")).toBe("must not contain the control character U+000A (character 5): a name is one line of visible text");
    expect(invisibleCharacterProblem("tab\there")).toMatch(/control character U\+0009/);
    expect(invisibleCharacterProblem("a\u2028b")).toMatch(/control character U\+2028/);
    expect(invisibleCharacterProblem("a\u0085b")).toMatch(/control character U\+0085/);
    // Positions count code points, not UTF-16 units: 😀 before the override is one character.
    expect(invisibleCharacterProblem("😀\u202E")).toMatch(/\(character 2\)/);
  });

  it("keeps the joiners, selectors and tags that scripts and emoji need, and only those", () => {
    for (const name of [
      "exact match",
      "Réponse exacte",
      "می\u200Cخواهم", // Persian: ZWNJ between two letters
      "क्\u200Dष", // Devanagari: ZWJ after a virama
      "👩\u200D💻", // woman technologist: ZWJ between two emoji
      "❤\uFE0F", // emoji presentation selector
      "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", // the flag of Scotland: tags
    ]) {
      expect([name, invisibleCharacterProblem(name)]).toEqual([name, null]);
    }
    expect(invisibleCharacterProblem("exact\u200Dmatch")).toMatch(/U\+200D \(character 6\)/); // between ASCII letters: hidden
    expect(invisibleCharacterProblem("👩\u200D")).toMatch(/U\+200D/); // dangling
    expect(invisibleCharacterProblem("a\uFE0F")).toMatch(/U\+FE0F/); // a selector on an ASCII letter
    expect(invisibleCharacterProblem("\u{E0067}")).toMatch(/U\+E0067/);
  });

  it("trims names and refuses blank ones as empty; a blank lookup says empty too", () => {
    const schema = nameSchema(10);
    expect(schema.safeParse("  policy  ").data).toBe("policy");
    expect(schema.safeParse("   ").error?.issues[0]?.message).toBe("must not be empty");
    expect(schema.safeParse("x".repeat(11)).error?.issues[0]?.message).toBe("must be at most 10 characters");
    expect(schema.safeParse("a\u200Bb").error?.issues[0]?.message).toMatch(/U\+200B/);
    expect(lookupNameProblem("")).toBe("must not be empty");
    expect(lookupNameProblem(" \t ")).toBe("must not be empty (it is only whitespace)");
    expect(lookupNameProblem(" x ")).toBeNull();
  });
});

describe("strict UTF-8", () => {
  it("finds the first invalid sequence, and tells a sent U+FFFD from a replaced byte", () => {
    expect(invalidUtf8Offset(Buffer.from("café 😀", "utf8"))).toBe(-1);
    expect(invalidUtf8Offset(Buffer.from([0x61, 0x62, 0xff, 0x63]))).toBe(2);
    expect(invalidUtf8Offset(Buffer.concat([Buffer.from("\uFFFD ok ", "utf8"), Buffer.from([0xc3])]))).toBe(7); // the sent U+FFFD is 3 bytes, " ok " 4
    expect(invalidUtf8Offset(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // an encoded surrogate (CESU-8)
    expect(invalidUtf8Offset(Buffer.from([0xc0, 0xaf]))).toBe(0); // an overlong "/"
    expect(utf8Problem(Buffer.from([0x22, 0x63, 0x61, 0x66, 0xe9, 0x22]))).toBe("is not valid UTF-8 (byte 0xe9 at byte 5): save the file as UTF-8");
  });
});
