// Package goclient is CI's check of the Go client oapi-codegen makes of app/api/openapi.json:
// .ci/clients copies this module to a scratch directory, generates the client there into
// ./apiclient (never committed), compiles it and runs scenario_test.go, which walks the real
// server (wsapi's apitest harness, by a replace of the product's module) with the generated
// client, every exchange validated against the document.
package goclient
