// Package docs holds no code: its tests keep the documentation beside them true (the
// architecture map names every package and links only pages that exist) and the repository
// clean (.gitignore keeps a local server's state out of commits).
package docs
