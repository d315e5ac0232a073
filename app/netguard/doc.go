// Package netguard is the rule of which network addresses a request to a tenant's URL may
// never reach (loopback, private, link-local, CGNAT, reserved, multicast, IPv4 hidden in
// IPv6), and the lenient host forms that must be read as the addresses they stand for. app
// applies it when a webhook URL is saved; app/safehttp applies it again at dial time.
package netguard
