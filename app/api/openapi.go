package api

import (
	_ "embed"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route, kept by hand beside the
// route table; a test fails when the two disagree.
//
//go:embed openapi.json
var OpenAPIDocument []byte

func (s *Server) openapi(rq *Request) error {
	rq.W.Header().Set("Content-Type", "application/json")
	_, err := rq.W.Write(OpenAPIDocument)
	return err
}
