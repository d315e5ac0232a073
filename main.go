// Command app is the self-hosted workspace messaging API: server, workers and admin CLI.
package main

import "wsapi/cli"

func main() { cli.Execute() }
