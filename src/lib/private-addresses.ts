import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * The guard against server-side request forgery shared by every outbound call the service makes
 * to an address a user gave (alert webhooks, LLM provider connections): a host that is or
 * resolves to a loopback, private, link-local (cloud metadata at 169.254.169.254), CGNAT,
 * multicast or unspecified address is refused, checked on the address the connection actually
 * uses (the lookup of the socket: no DNS-rebinding gap) and on IP literals (which skip lookup).
 */

/** Ranges refused by default (IPv4 and IPv6). */
const PRIVATE = new BlockList();
for (const [net, prefix] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.168.0.0", 16], ["224.0.0.0", 4], ["240.0.0.0", 4], ["192.0.0.0", 24], ["198.18.0.0", 15]] as const) PRIVATE.addSubnet(net, prefix, "ipv4");
// ::/96 (IPv4-compatible), NAT64 64:ff9b::/96 and 6to4 2002::/16 embed an IPv4 address (a private one reachable through them); fec0::/10 is site-local.
for (const [net, prefix] of [["::", 96], ["::1", 128], ["64:ff9b::", 96], ["2002::", 16], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8]] as const) PRIVATE.addSubnet(net, prefix, "ipv6");

/** True when `address` (an IP literal) is in a range refused by default. IPv4-mapped IPv6 is read as IPv4. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, "ipv4");
  const family = isIP(address);
  return family === 4 ? PRIVATE.check(address, "ipv4") : family === 6 ? PRIVATE.check(address, "ipv6") : false;
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null when it is a name or not a URL. */
export function ipLiteralOf(url: string): string | null {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return isIP(host) ? host : null;
  } catch {
    return null;
  }
}

/**
 * A socket lookup that refuses private addresses, naming the setting that allows them.
 * @param allowWith - the environment variable that lifts the guard, for the error message.
 * @returns a `net` lookup function; a refusal is an error with code `EPRIVATE`.
 */
export function guardedLookup(allowWith: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private or loopback address (set ${allowWith}=true to allow)`), { code: "EPRIVATE" }), "", 0);
      if (options.all) return callback(null, addresses as never, 0);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
