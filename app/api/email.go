package api

// orgByDomain is the public lookup of an organization by a verified sending domain; the
// routes of domains and identities are plain objects the route table serves (reply.go).
func (s *Server) orgByDomain(rq *Request) error {
	return rq.OK(s.svc.OrgByDomain(rq.Ctx(), rq.Param("hostname")))
}
