package netguard_test

import (
	"net/netip"
	"testing"

	"wsapi/app/netguard"
)

func TestForbiddenAddr(t *testing.T) {
	cases := []struct{ addr, class string }{
		// public
		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"172.15.255.255", ""},
		{"172.32.0.0", ""},
		{"100.63.255.255", ""},
		{"100.128.0.0", ""},
		{"198.17.255.255", ""},
		{"198.20.0.0", ""},
		{"223.255.255.255", ""},
		{"2606:2800:220:1:248:1893:25c8:1946", ""},
		{"::ffff:93.184.216.34", ""},
		{"64:ff9b::5db8:d822", ""}, // NAT64 of a public address
		{"2002:5db8:d822::1", ""},  // 6to4 of a public address
		// IPv4 classes
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"10.0.0.1", "private"},
		{"10.255.255.255", "private"},
		{"172.16.5.4", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "link-local"},
		{"100.64.0.1", "CGNAT"},
		{"100.127.255.255", "CGNAT"},
		{"198.18.0.1", "benchmark"},
		{"198.19.255.255", "benchmark"},
		{"240.0.0.1", "reserved"},
		{"192.0.2.1", "reserved"},
		{"255.255.255.255", "broadcast"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		// IPv6 classes
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"febf::1", "link-local"},
		{"fc00::1", "unique-local"},
		{"fdff::1", "unique-local"},
		{"ff02::1", "multicast"},
		{"2001:db8::1", "reserved"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"}, // Teredo
		// IPv6 forms embedding a forbidden IPv4 address
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::127.0.0.1", "loopback (embedded in IPv6)"},
		{"64:ff9b::7f00:1", "loopback (embedded in IPv6)"},
		{"64:ff9b::a00:1", "private (embedded in IPv6)"},
		{"64:ff9b:1::a9fe:a9fe", "link-local (embedded in IPv6)"},
		{"2002:7f00:1::1", "loopback (embedded in IPv6)"},
		{"2002:c0a8:101::1", "private (embedded in IPv6)"},
	}
	for _, c := range cases {
		if got := netguard.ForbiddenAddr(netip.MustParseAddr(c.addr)); got != c.class {
			t.Errorf("ForbiddenAddr(%s) = %q, want %q", c.addr, got, c.class)
		}
	}
	if got := netguard.ForbiddenAddr(netip.Addr{}); got != "invalid" {
		t.Errorf("ForbiddenAddr(zero) = %q, want invalid", got)
	}
}

func TestParseLooseIPv4(t *testing.T) {
	cases := []struct {
		host      string
		addr      string // "" when not an IPv4 form
		canonical bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"93.184.216.34", "93.184.216.34", true},
		{"2130706433", "127.0.0.1", false},
		{"0x7f000001", "127.0.0.1", false},
		{"0X7F000001", "127.0.0.1", false},
		{"0177.0.0.1", "127.0.0.1", false},
		{"0177.0.0.01", "127.0.0.1", false},
		{"127.1", "127.0.0.1", false},
		{"127.0.1", "127.0.0.1", false},
		{"10.1", "10.0.0.1", false},
		{"0x7f.1", "127.0.0.1", false},
		{"0xa.0.0.1", "10.0.0.1", false},
		{"0", "0.0.0.0", false},
		{"0x", "0.0.0.0", false},
		{"3232235777", "192.168.1.1", false},
		{"4294967295", "255.255.255.255", false},
		{"127.16777215", "127.255.255.255", false},
		// not IPv4 forms
		{"4294967296", "", false},
		{"256.0.0.1", "", false},
		{"127.16777216", "", false},
		{"1.2.3.4.5", "", false},
		{"1.2.3.", "", false},
		{".1.2.3", "", false},
		{"", "", false},
		{"08", "", false},
		{"0x1g", "", false},
		{"example.test", "", false},
		{"1.2.3.example", "", false},
		{"-1", "", false},
		{"::1", "", false},
	}
	for _, c := range cases {
		addr, ok, canonical := netguard.ParseLooseIPv4(c.host)
		if c.addr == "" {
			if ok {
				t.Errorf("ParseLooseIPv4(%q) = %s, true; want not an IPv4 form", c.host, addr)
			}
			continue
		}
		if !ok || addr != netip.MustParseAddr(c.addr) || canonical != c.canonical {
			t.Errorf("ParseLooseIPv4(%q) = %s, %v, %v; want %s, true, %v", c.host, addr, ok, canonical, c.addr, c.canonical)
		}
	}
}
