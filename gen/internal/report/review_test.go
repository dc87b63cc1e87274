package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/model"
)

// Paths that share a long prefix, as Twilio's all start with
// /2010-04-01/Accounts/{AccountSid}, are shown without it and, when still long, cut in
// the middle; no two rows read the same.
func TestOperationCellsStayDistinct(t *testing.T) {
	var ops []*model.Operation
	for _, p := range []string{
		"/Calls/{CallSid}/Notifications/{Sid}.json", "/Calls/{CallSid}/Notifications.json",
		"/Calls/{CallSid}/Recordings/{Sid}.json", "/Calls/{CallSid}/Recordings.json",
		"/Conferences/{ConferenceSid}/Participants/{CallSid}.json", "/Conferences/{ConferenceSid}/Recordings/{Sid}.json",
		"/SIP/Domains/{DomainSid}/Auth/Calls/CredentialListMappings/{Sid}.json",
		"/SIP/Domains/{DomainSid}/Auth/Calls/IpAccessControlListMappings/{Sid}.json",
		"/SIP/Domains/{DomainSid}/Auth/Registrations/CredentialListMappings/{Sid}.json",
	} {
		for _, m := range []string{"GET", "POST"} {
			ops = append(ops, &model.Operation{Method: m, Path: "/2010-04-01/Accounts/{AccountSid}" + p})
		}
	}
	cells, prefix := operationCells(ops, maxOperationCell)
	if prefix != "/2010-04-01/Accounts/{AccountSid}" {
		t.Errorf("prefix %q", prefix)
	}
	seen := map[string]bool{}
	for i, c := range cells {
		if seen[c] {
			t.Errorf("two rows read %q", c)
		}
		seen[c] = true
		if !strings.HasPrefix(c, ops[i].Method+" …/") {
			t.Errorf("cell %q does not drop the prefix", c)
		}
		if n := utf8.RuneCountInString(c); n > 64 {
			t.Errorf("cell %q is %d runes", c, n)
		}
	}
	if wide, _ := operationCells(ops, maxWideOperationCell); wide[0] != "GET …/Calls/{CallSid}/Notifications/{Sid}.json" {
		t.Errorf("a cell that fits is cut: %q", wide[0])
	}
	if c := cells[12]; !strings.Contains(c, "…") || !strings.HasSuffix(c, "Mappings/{Sid}.json") {
		t.Errorf("a long cell is not cut in the middle: %q", c)
	}
	// A single operation, or paths with nothing in common, keep their paths whole.
	if _, prefix := operationCells(ops[:1], maxOperationCell); prefix != "" {
		t.Errorf("one operation: prefix %q", prefix)
	}
}

// A Markdown plan fits a pull-request comment whatever the spec's size: the operations
// with the document's policy are folded, the exceptions listed until the budget is spent.
func TestMarkdownPlanFitsAComment(t *testing.T) {
	api := &model.API{Title: "Big"}
	for i := range 5000 {
		p := model.Policy{Retry: true, Idempotent: true, MaxAttempts: 4, Jitter: "full",
			Sources: map[string]model.Source{"maxAttempts": model.FromDefault}, Reason: "GET is safe (RFC 9110 §9.2.1)"}
		if i%2 == 0 {
			p.Sources["maxAttempts"] = model.FromOperation // an exception
		}
		api.Operations = append(api.Operations, &model.Operation{
			Method: "GET", Path: fmt.Sprintf("/very/long/resource/path/number/%d/with/{many}/segments/%d", i, i),
			GoName: fmt.Sprintf("GetVeryLongResourcePathNumber%dWithManySegmentsAndAName", i), Policy: p,
		})
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, "big.yaml", api); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := utf8.RuneCountInString(out); n >= 65536 {
		t.Errorf("%d characters", n)
	}
	for _, want := range []string{"**Retried:** 5000 of 5000", "more, left out to fit a comment", "more: `retrygen plan -json` lists them", "<details>"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q", want)
		}
	}
}

// A Markdown plan keeps every method name whole, where a reviewer searches for it: the
// path of an operation with a long name is cut instead. Folded lists say in words how many
// they hold and how many they show.
func TestMarkdownPlanKeepsMethodNamesWhole(t *testing.T) {
	api := &model.API{Title: "Big"}
	goNames := map[string]bool{}
	for i := range 3000 {
		p := model.Policy{Retry: i%3 != 0, Idempotent: i%3 != 0, MaxAttempts: 4, Jitter: "full",
			Sources: map[string]model.Source{"maxAttempts": model.FromDefault}, Reason: "GET is safe (RFC 9110 §9.2.1)"}
		method := "GET"
		if i%3 == 0 {
			method = "POST" // a write without a key: listed under the writes not retried
		}
		if i%7 == 0 {
			p.Sources["maxAttempts"] = model.FromOperation // an exception
		}
		name := fmt.Sprintf("ListEveryResourceOfTheAccountWithTheLongestNameAnyoneWouldWrite%04dForReview", i)
		goNames[name] = true
		api.Operations = append(api.Operations, &model.Operation{
			Method: method, Path: fmt.Sprintf("/accounts/{account}/resources/number/%d/with/{many}/segments/%d", i, i),
			GoName: name, Policy: p,
		})
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, "big.yaml", api); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := utf8.RuneCountInString(out); n >= 65536 {
		t.Errorf("%d characters", n)
	}
	shown := 0
	for _, word := range strings.FieldsFunc(out, func(r rune) bool { return r == ' ' || r == '|' || r == '\n' || r == '(' || r == ')' }) {
		if strings.HasPrefix(word, "ListEvery") || strings.HasSuffix(word, "ForReview") {
			if !goNames[word] {
				t.Errorf("a method name is cut: %q", word)
			}
			shown++
		}
	}
	if shown == 0 {
		t.Error("no method name shown")
	}
	// The rows of the exceptions and of the folded list keep their width: the path is cut.
	bound := max(minMarkdownPathCell, maxWideOperationCell+maxMethodCell-len(api.Operations[0].GoName))
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		var path string
		if cells := strings.Split(line, " | "); strings.HasPrefix(line, "| ") && strings.Contains(line, "ForReview") {
			path = strings.TrimPrefix(cells[0], "| ")
		} else if strings.HasPrefix(line, "- GET ") && strings.HasSuffix(line, "ForReview") {
			path = strings.TrimPrefix(line[:strings.LastIndexByte(line, ' ')], "- ")
		} else {
			continue
		}
		rows++
		if n := utf8.RuneCountInString(path); n > bound {
			t.Errorf("an operation cell of %d runes beside a long method name: %q", n, path)
		}
	}
	if rows == 0 {
		t.Error("no row found")
	}
	counts := regexp.MustCompile(`\((\d+), the first (\d+) listed\)`).FindAllStringSubmatch(out, -1)
	if len(counts) != 2 {
		t.Errorf("the folded lists say %v, want two counts in words", counts)
	}
	if bare := regexp.MustCompile(`\d\+\d`).FindString(out); bare != "" {
		t.Errorf("a count is written %q", bare)
	}
}
