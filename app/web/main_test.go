package web_test

import (
	"os"
	"testing"

	"wsapi/app/browsertest"
)

// The package's browser tests share one Chromium, stopped when they are done.
func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }
