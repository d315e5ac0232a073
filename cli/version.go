package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X wsapi/cli.Version=..."; otherwise the
// module version of the build (a tagged `go install`), else "dev".
var Version = "dev"

// BuildInfo is what `app version` prints: read from the binary itself, so a build from a git
// checkout names its commit without any flag.
type BuildInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	Go         string `json:"go"`
}

// ReadBuildInfo answers the version, VCS stamp and Go version of the running binary.
func ReadBuildInfo() BuildInfo {
	b := BuildInfo{Version: Version}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Go = info.GoVersion
	if b.Version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.CommitTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the line people read.
func (b BuildInfo) String() string {
	s := "app " + b.Version
	if b.Commit != "" {
		s += " commit " + b.Commit
		if b.Modified {
			s += " (modified)"
		}
	}
	if b.CommitTime != "" {
		s += " committed " + b.CommitTime
	}
	return s + " " + b.Go
}

func versionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "version", Short: "Print the version, the commit it was built from and the Go version", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := ReadBuildInfo()
			return e.print(b, fmt.Sprintln(b))
		},
	}
}
