//go:build race

package knowledge

// childExtraEnv is added to the child's environment. A binary built with -race sleeps a
// second at exit (GORACE's atexit_sleep_ms) to let other goroutines report races; the child
// has none, and the knowledge tests start some 300 children. Only race builds (tests) add it.
var childExtraEnv = []string{"GORACE=atexit_sleep_ms=0"}
