// Package docrefs holds the tests that keep the repository self-contained: no tracked file
// cites a document the repository does not hold, or a path beside it other than the spec
// corpus (../shared/specs, see internal/corpus); every relative link of a Markdown file
// reaches a file of the repository, and a heading there when it names one; and every test
// a document names (docs/reliability.md names the test of each case) is declared. The
// README stays short enough to read first: at most 300 lines.
package docrefs
