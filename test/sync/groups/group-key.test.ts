import { describe, expect, it } from "vitest";
import { groupIdOf, groupKeyOf } from "../../../src/sync/groups/group-key.js";

const view = (title: string | null, assetId: string | null = "a1", module: string | null = "web") => ({
  title,
  assetId,
  module,
});

describe("group keys (contract, Groups: by asset, title, module or cve)", () => {
  it("asset, title and module group by that field as read", () => {
    expect(groupKeyOf("asset", view("x", "asset-9"))).toBe("asset-9");
    expect(groupKeyOf("title", view("  Outdated TLS  "))).toBe("Outdated TLS");
    expect(groupKeyOf("module", view("x", "a", "lcm"))).toBe("lcm");
  });

  it("cve: the first CVE-YYYY-NNNN… of the title, any case, written as CVE writes it", () => {
    expect(groupKeyOf("cve", view("OpenSSL cve-2024-12345 and CVE-2023-0001"))).toBe("CVE-2024-12345");
    expect(groupKeyOf("cve", view("Log4Shell (CVE-2021-44228)"))).toBe("CVE-2021-44228");
  });

  it("a threat with no key stays alone: no CVE in the title, no asset, a blank title", () => {
    expect(groupKeyOf("cve", view("Weak cipher suites"))).toBeNull();
    expect(groupKeyOf("cve", view("CVE-2024-12 is too short"))).toBeNull();
    expect(groupKeyOf("cve", view(null))).toBeNull();
    expect(groupKeyOf("asset", view("x", null))).toBeNull();
    expect(groupKeyOf("title", view("   "))).toBeNull();
  });

  it("the state's key names the grouping and the key", () => {
    expect(groupIdOf("cve", "CVE-2021-44228")).toBe("group:cve:CVE-2021-44228");
  });
});
