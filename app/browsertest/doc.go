// Package browsertest starts headless Chromium for the tests that drive real pages (the web
// app, the widget embedded in another origin's page) with chromedp.
//
// The browser is Debian's chromium (/usr/bin/chromium, or $CHROMIUM), which .ci/run installs
// when it is missing. A test binary starts one browser, on first use, and stops it when its
// tests end (its TestMain calls Main); each call of New is a tab in a browser context of its
// own, so tests can run in parallel without seeing each other's cookies or storage. Where no
// browser exists a test fails unless BROWSERTEST_SKIP=1 is set, so CI can never pass by
// skipping the pages.
//
// Screenshots go to $SCREENSHOT_DIR when set, else to a folder under the system's temporary
// directory that the test logs, so a run's pictures can be looked at afterwards.
package browsertest
