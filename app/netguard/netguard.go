package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// forbiddenNets are the address ranges a customer webhook (or crawled URL) may never reach:
// loopback, private, link-local, CGNAT, "this network", benchmark, reserved, multicast and
// the IETF special-purpose blocks that are not globally reachable.
// teredo is the Teredo range, whose addresses hide an obfuscated IPv4 address.
var teredo = netip.MustParsePrefix("2001::/32")

var forbiddenNets = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("100.64.0.0/10"), "CGNAT"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "reserved"},
	{netip.MustParsePrefix("198.51.100.0/24"), "reserved"},
	{netip.MustParsePrefix("203.0.113.0/24"), "reserved"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmark"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fc00::/7"), "unique-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("2001:db8::/32"), "reserved"},
	{netip.MustParsePrefix("100::/64"), "reserved"},
}

// embedded6 are IPv6 forms that carry an IPv4 address, checked as that address.
var embedded6 = []struct {
	prefix netip.Prefix
	offset int // byte offset of the embedded IPv4 address
}{
	{netip.MustParsePrefix("::ffff:0:0/96"), 12},  // IPv4-mapped
	{netip.MustParsePrefix("::/96"), 12},          // IPv4-compatible (deprecated)
	{netip.MustParsePrefix("64:ff9b::/96"), 12},   // NAT64
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12}, // local-use NAT64
	{netip.MustParsePrefix("2002::/16"), 2},       // 6to4
}

// ForbiddenAddr names the class of an address that outbound requests must not reach, or
// answers "" for a public address.
func ForbiddenAddr(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid"
	}
	a = a.WithZone("")
	if a.Is6() && !a.Is4In6() {
		for _, e := range embedded6 {
			if e.prefix.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback() {
				b := a.As16()
				if class := ForbiddenAddr(netip.AddrFrom4([4]byte(b[e.offset : e.offset+4]))); class != "" {
					return class + " (embedded in IPv6)"
				}
			}
		}
		// Teredo hides an obfuscated IPv4 address; there is no reason to call one.
		if teredo.Contains(a) {
			return "reserved"
		}
	}
	a = a.Unmap()
	if a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return "broadcast"
	}
	for _, n := range forbiddenNets {
		if n.prefix.Contains(a) {
			return n.class
		}
	}
	return ""
}

// ParseLooseIPv4 reads the IPv4 forms that inet_aton and browsers accept besides dotted
// decimal: one to four parts, each decimal, octal (leading 0) or hex (0x). It answers whether
// host is such a form and whether it is the canonical dotted-decimal one.
func ParseLooseIPv4(host string) (addr netip.Addr, ok, canonical bool) {
	parts := strings.Split(host, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return addr, false, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := parseIPv4Part(p)
		if err != nil {
			return addr, false, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 255 {
			return addr, false, false
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return addr, false, false
	}
	n |= vals[last]
	addr = netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	return addr, true, addr.String() == host
}

func parseIPv4Part(p string) (uint64, error) {
	switch {
	case p == "":
		return 0, strconv.ErrSyntax
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		if len(p) == 2 {
			return 0, nil
		}
		return strconv.ParseUint(p[2:], 16, 32)
	case len(p) > 1 && p[0] == '0':
		return strconv.ParseUint(p[1:], 8, 32)
	}
	return strconv.ParseUint(p, 10, 32)
}

// IsLocalhostName tells names that always mean this machine.
func IsLocalhostName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "localhost.localdomain" ||
		h == "ip6-localhost" || h == "ip6-loopback"
}
