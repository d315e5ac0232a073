//go:build !race

package knowledge

// childExtraEnv is added to the child's environment: nothing outside race builds (see
// childrace.go).
var childExtraEnv []string
