package main

import (
	"net"

	"github.com/miekg/dns"
)

// startDNS answers every query at once with "no such name", as a working resolver answers
// for the bench's made-up sender domains: the listener's SPF, DKIM and DMARC checks then cost
// a round trip on loopback, not the wait for a resolver this machine cannot reach.
func startDNS() string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	check(err)
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetRcode(r, dns.RcodeNameError)
		w.WriteMsg(m)
	})}
	go srv.ActivateAndServe()
	return pc.LocalAddr().String()
}
