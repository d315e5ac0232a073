// Package statuswriter remembers the status a handler wrote, for the access logs and the
// panic recovery of both HTTP front ends (app/api and app/web), which do not import each
// other.
package statuswriter
