package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route, kept by hand beside the
// route table; a test fails when the two disagree. Its `servers` entry is the default
// address; the served copy names http.public_url instead (withServer).
//
//go:embed openapi.json
var OpenAPIDocument []byte

func (s *Server) openapi(rq *Request) error {
	rq.W.Header().Set("Content-Type", "application/json")
	_, err := rq.W.Write(s.document)
	return err
}

// servedDocument is the document a deployment answers: its servers entry names publicURL,
// because generated clients and request routers (kin-openapi's among them) resolve paths
// against it, and the default address is nobody's real one. Without a public URL, or should
// the splice fail, the document is answered as kept.
func servedDocument(publicURL string) []byte {
	if publicURL == "" {
		return OpenAPIDocument
	}
	doc, err := withServer(OpenAPIDocument, strings.TrimSuffix(publicURL, "/"))
	if err != nil {
		return OpenAPIDocument
	}
	return doc
}

// withServer replaces the top-level "servers" value of doc by one entry naming url. It
// splices bytes instead of re-encoding, so the document keeps its order and layout.
func withServer(doc []byte, url string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("openapi: document is not an object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		start := dec.InputOffset()
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if key != "servers" {
			continue
		}
		end := dec.InputOffset()
		start += int64(len(doc[start:end]) - len(bytes.TrimLeft(doc[start:end], " \t\r\n:")))
		entry, err := json.Marshal([]map[string]string{{"url": url, "description": "http.public_url of this deployment"}})
		if err != nil {
			return nil, err
		}
		return bytes.Join([][]byte{doc[:start], entry, doc[end:]}, nil), nil
	}
	return nil, fmt.Errorf("openapi: document has no servers")
}
