package browsertest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
		// Parallel tests each have a window; none of them is in the background, so none
		// has its timers throttled or its rendering paused.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		// A microphone that plays a tone, allowed without a prompt (the widget's voice button).
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.WindowSize(1280, 800),
	}
}

// shared is the one browser of a test binary: starting Chromium costs about a second of
// CPU, so the tests share it, each in a browser context of its own (cookies, storage and
// cache apart, as two browsers would keep them).
var shared struct {
	mu      sync.Mutex
	inMain  bool
	started bool
	ctx     context.Context // the browser's first tab; its cancel stops the browser
	stop    context.CancelFunc
	profile string
	err     error
}

var errNoChromium = errors.New("no Chromium found: install Debian's chromium (bash .ci/run does) or set $CHROMIUM")

// Main runs a package's tests and then stops the browser they shared. A package whose tests
// call New has `func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }`.
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.inMain = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.stop != nil {
		shared.stop()
	}
	if shared.profile != "" {
		_ = os.RemoveAll(shared.profile)
	}
	return code
}

// browser starts the shared browser on first use and answers its context.
func browser() (context.Context, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		return nil, errors.New("browsertest: the package's TestMain must call browsertest.Main, which stops the shared browser")
	}
	if shared.started {
		return shared.ctx, shared.err
	}
	shared.started = true
	path := Path()
	if path == "" {
		shared.err = errNoChromium
		return nil, shared.err
	}
	profile, err := os.MkdirTemp("", "browsertest-")
	if err != nil {
		shared.err = err
		return nil, err
	}
	shared.profile = profile
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), Options(path, profile)...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	shared.ctx = ctx
	shared.stop = func() { cancelCtx(); cancelAlloc() }
	// The browser lives as long as ctx, so its start is bounded by a timer, not by a
	// deadline on ctx.
	timer := time.AfterFunc(Timeout, cancelCtx)
	err = chromedp.Do(ctx)
	timer.Stop()
	if err != nil {
		shared.err = errors.Join(errors.New("start "+path), err)
	}
	return shared.ctx, shared.err
}

// New answers the context of a fresh tab for t in a browser context of its own: what one
// test's pages store is never seen by another's. The tab is closed and its browser context
// disposed of when t ends; the whole test is bounded by Timeout.
func New(t testing.TB) context.Context {
	t.Helper()
	parent, err := browser()
	if errors.Is(err, errNoChromium) && os.Getenv("BROWSERTEST_SKIP") == "1" {
		t.Skip("no Chromium and BROWSERTEST_SKIP=1")
	}
	if err != nil {
		t.Fatal(err)
	}
	tab, cancelTab := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	ctx, cancelTimeout := context.WithTimeout(tab, Timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancelTab()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("new browser context: %v", err)
	}
	return ctx
}

// NewTab opens another tab in the browser context of ctx (a second tab of the same visitor
// or member, sharing cookies and storage).
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
