package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds one browser test as a whole, so a page that never settles fails the test
// instead of hanging the suite.
const Timeout = 60 * time.Second

// Path is the Chromium binary the tests drive: $CHROMIUM, else the first of Debian's names
// found on PATH.
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Options are the flags of a headless browser on a machine with no network but loopback:
// without the background-networking flags Chromium keeps dialling hosts it cannot reach.
func Options(path, profile string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("no-proxy-server", true),
		// A microphone that plays a tone, allowed without a prompt (the widget's voice button).
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.WindowSize(1280, 800),
	}
}

// New starts a headless browser for t and returns the context of its first tab. The browser
// is closed when t ends; the whole test is bounded by Timeout.
func New(t testing.TB) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		if os.Getenv("BROWSERTEST_SKIP") == "1" {
			t.Skip("no Chromium and BROWSERTEST_SKIP=1")
		}
		t.Fatal("no Chromium found: install Debian's chromium (bash .ci/run does) or set $CHROMIUM")
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), Timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, Options(path, t.TempDir())...)
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return tab
}

// NewTab opens another tab in the browser of ctx (a second tab of the same visitor or
// member, sharing cookies and storage).
func NewTab(t testing.TB, ctx context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("new tab: %v", err)
	}
	return tab
}

// ScreenshotDir is where the run's screenshots go: $SCREENSHOT_DIR, else a fixed folder
// under the temporary directory, so CI can print its path and keep its files.
func ScreenshotDir() string {
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "app-screenshots")
	}
	return dir
}

// Screenshot saves the whole page of ctx as name.png in ScreenshotDir, at the given width
// (the height follows the window), and logs where it went.
func Screenshot(t testing.TB, ctx context.Context, name string, width int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 800)); err != nil {
		t.Fatalf("viewport %d: %v", width, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG, not JPEG
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := ScreenshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot dir: %v", err)
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatalf("write screenshot: %v", err)
	}
	t.Logf("screenshot: %s", file)
}
