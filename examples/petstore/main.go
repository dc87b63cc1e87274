// Command petstore calls every operation of the generated petstore client (./client, from
// petstore.yaml) against a local flaky server, and prints what the client did and why:
//
//	go generate ./examples/petstore/... && go run ./examples/petstore
//
// The server (server.go) follows a script of faults: 503s, a 429 with Retry-After, one
// on the middle page of a list walked page by page, a dropped connection, an answer slower than updatePet's 300ms attempt timeout, a Retry-After
// too long to wait for, and, for one call, no server listening yet. The log has three kinds
// of lines: "server" lines say what the server saw and did, "client" lines come from the
// client's OnRetry hook (the attempt that failed, why, and the wait before the next), and
// "result" lines say what the call returned. It runs in a few seconds.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/retrygen/retrygen/examples/petstore/client"
)

func main() {
	if err := run(context.Background(), os.Stdout, net.Listen, &http.Client{}); err != nil {
		fmt.Fprintln(os.Stderr, "petstore:", err)
		os.Exit(1)
	}
}

// run starts the flaky server on listen("tcp", "127.0.0.1:0"), calls every operation
// through a client that sends with hc, and writes the log to w. The tests pass an
// in-memory network for listen and hc.
func run(ctx context.Context, w io.Writer, listen func(network, addr string) (net.Listener, error), hc *http.Client) error {
	log := &logger{w: w}
	srv := newFlakyServer(log)
	ln, err := listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv}
	// One connection per request: with keep-alive, net/http itself re-sends a GET (or a
	// request with an Idempotency-Key header) once when a reused connection closes before
	// the answer, and that re-send happens below the client's retry engine, unseen by
	// OnRetry. Fresh connections keep this log about the client's own decisions.
	hs.SetKeepAlivesEnabled(false)
	go hs.Serve(ln)
	defer hs.Close()
	defer hc.CloseIdleConnections()

	baseURL := "http://" + ln.Addr().String() + "/v1"
	calls := &caller{log: log}
	c := client.NewClient(client.WithBaseURL(baseURL),
		client.WithHTTPClient(hc),
		client.WithOnRetry(calls.onRetry),
		// This run fails a dozen calls within seconds. The default retry budget (retries
		// up to 10% of calls, plus one a second) would rightly stop retrying some of them,
		// as it would in a real outage; here each call shows its own policy instead.
		client.WithoutRetryBudget(),
		// watchPet's security requirement asks for this token; the other operations
		// declare none and send none.
		client.WithBearerAuth("demo-token"),
	)
	log.printf("retrygen petstore example: the generated client against a flaky server at %s", baseURL)

	calls.begin("listPets", "GET is safe, so it is retried under the document's x-retry (3 attempts,",
		"100ms-1s backoff); the server's Retry-After is a floor under the backoff")
	srv.plan("GET /v1/pets", fault{status: 503}, fault{status: 429, retryAfter: "1"})
	pets, err := c.ListPets(ctx, nil)
	calls.end(err, "%s", plural(len(pets), "pet"))

	calls.begin("listPetsPages", "a walk over the pages, one pet each, by the Link header: each page is one",
		"call of listPets with its own retries, so the 503 on the middle page is retried inside",
		"that page's call, and the walk never retries on top of it")
	srv.plan("GET /v1/pets", fault{}, fault{status: 503})
	names, pages, attempts, err := walkPets(ctx, c, log)
	calls.endWalk(err, attempts, "%s in %s: %s", plural(len(names), "pet"), plural(pages, "page"), strings.Join(names, ", "))

	calls.begin("getPet", "a dropped connection is retried too: a GET may be repeated whether or not",
		"the server saw it")
	srv.plan("GET /v1/pets/{petId}", fault{drop: true})
	pet, err := c.GetPet(ctx, 1)
	calls.end(err, "%s", petText(pet))

	calls.begin("getPet", "a Retry-After longer than the document's maxRetryAfter (5s) ends the call",
		"at once, with the server's hint in the error, instead of sleeping an hour")
	srv.plan("GET /v1/pets/{petId}", fault{status: 503, retryAfter: "3600"})
	pet, err = c.GetPet(ctx, 1)
	calls.end(err, "%s", petText(pet))

	calls.begin("getInventory", "the path-level x-retry of /store/inventory: 2 attempts, every 5XX",
		"(so 507 too; but not 501 or 505, which no retry fixes), equal jitter")
	srv.plan("GET /v1/store/inventory", fault{status: 507}, fault{status: 507})
	stock, err := c.GetInventory(ctx)
	calls.end(err, "%d species in stock", len(stock))

	calls.begin("createPet", "a POST with x-idempotency-key is retried: one random key per call, the",
		"same on every attempt; a 409 (an earlier attempt still in progress) is retried too")
	srv.plan("POST /v1/pets", fault{status: 503}, fault{status: 409})
	pet, err = c.CreatePet(ctx, client.NewPet{Name: "Bella", Species: client.SpeciesDog})
	calls.end(err, "%s", petText(pet))

	calls.begin("createPet", "the next call gets a key of its own")
	pet, err = c.CreatePet(ctx, client.NewPet{Name: "Kitty", Species: client.SpeciesCat})
	calls.end(err, "%s", petText(pet))

	calls.begin("placeOrder", "the spec declares an Idempotency-Key header parameter: the caller's key",
		"is sent as given, on every attempt")
	srv.plan("POST /v1/store/orders", fault{status: 502})
	order, err := c.PlaceOrder(ctx, &client.PlaceOrderParams{IdempotencyKey: "order-2026-0001"},
		client.Order{PetID: 1, Quantity: 1})
	calls.end(err, "%s", orderText(order))

	calls.begin("searchPets", "a POST marked x-idempotent: true is retried without a key")
	srv.plan("POST /v1/pets/search", fault{status: 504})
	pets, err = c.SearchPets(ctx, client.PetQuery{Species: ptr(client.SpeciesDog)})
	calls.end(err, "%s", plural(len(pets), "pet"))

	calls.begin("updatePet", "the operation's own x-retry: up to 4 attempts of at most 300ms each;",
		"an attempt that times out is retried")
	srv.plan("PUT /v1/pets/{petId}", fault{hold: time.Second})
	pet, err = c.UpdatePet(ctx, 1, client.NewPet{Name: "Rex", Species: client.SpeciesDog})
	calls.end(err, "%s", petText(pet))

	calls.begin("updatePet", "its x-retry retries only 429 and 503, so a 500 is returned at once")
	srv.plan("PUT /v1/pets/{petId}", fault{status: 500})
	pet, err = c.UpdatePet(ctx, 1, client.NewPet{Name: "Rex", Species: client.SpeciesDog})
	calls.end(err, "%s", petText(pet))

	calls.begin("deletePet", "DELETE is idempotent, so it is retried by default")
	srv.plan("DELETE /v1/pets/{petId}", fault{status: 503})
	err = c.DeletePet(ctx, 2)
	calls.end(err, "deleted")

	calls.begin("watchPet", "a GET event stream with a bearer token: cut after 2 events, it resumes",
		"with Last-Event-ID after the server's retry interval, and no event comes twice")
	srv.plan("GET /v1/pets/{petId}/events", fault{cutAfter: 2})
	n, err := watch(ctx, c, log)
	calls.end(err, "%s", plural(n, "event"))

	calls.begin("feedPet", "a POST without an idempotency key is not retried once the server may have",
		"seen it: feeding twice is not feeding once, so the 503 is returned")
	srv.plan("POST /v1/pets/{petId}/feed", fault{status: 503})
	pet, err = c.FeedPet(ctx, 7, client.Meal{Food: "kibble"})
	calls.end(err, "%s", petText(pet))

	calls.begin("feedPet", "the server feeds the pet, then the connection drops before the answer:",
		"not retried, so the pet is fed once, not twice")
	srv.plan("POST /v1/pets/{petId}/feed", fault{drop: true})
	pet, err = c.FeedPet(ctx, 7, client.Meal{Food: "kibble"})
	calls.end(err, "%s", petText(pet))

	// The last call goes to a second server that is not listening yet: it starts during the
	// client's first wait.
	late, err := listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	lateAddr := late.Addr().String()
	late.Close()
	lateServer := &http.Server{Handler: srv}
	lateServer.SetKeepAlivesEnabled(false)
	defer lateServer.Close()
	var startLate sync.Once
	var startErr error
	c2 := client.NewClient(client.WithBaseURL("http://"+lateAddr+"/v1"),
		client.WithHTTPClient(hc),
		client.WithoutRetryBudget(),
		client.WithOnRetry(func(ev client.RetryEvent) {
			calls.onRetry(ev)
			startLate.Do(func() {
				l, err := listen("tcp", lateAddr)
				if err != nil {
					startErr = err
					return
				}
				log.printf("server  starts listening on %s", lateAddr)
				go lateServer.Serve(l)
			})
		}))
	calls.begin("feedPet", "a connection that could not be opened sent nothing, so even this POST is",
		"retried (under the document's x-retry: 3 attempts, 100ms-1s backoff)")
	pet, err = c2.FeedPet(ctx, 7, client.Meal{Food: "kibble"})
	calls.end(err, "%s", petText(pet))
	if startErr != nil {
		return startErr
	}

	log.printf("")
	log.printf("Each operation's policy, and where each value comes from:")
	log.printf("  go run ./cmd/retrygen plan examples/petstore/petstore.yaml")
	return log.err
}

// walkPets lists every pet, one page of one pet at a time, and logs each page; it returns
// the pets' names, the pages and the attempts all pages took.
func walkPets(ctx context.Context, c *client.Client, log *logger) (names []string, pages, attempts int, err error) {
	for page, err := range c.ListPetsPages(ctx, &client.ListPetsParams{Limit: ptr(int32(1))}) {
		if err != nil {
			return names, pages, attempts, err // a *client.PageError: the pages before it came
		}
		pages++
		attempts += page.Info.Attempts
		for _, pet := range page.Items {
			names = append(names, pet.Name)
		}
		log.printf("client  page %d after %s: %s", pages, plural(page.Info.Attempts, "attempt"), petNames(page.Items))
	}
	return names, pages, attempts, nil
}

func petNames(pets []client.Pet) string {
	names := make([]string, len(pets))
	for i, p := range pets {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// watch follows pet 1's events until the stream ends and returns how many it read.
func watch(ctx context.Context, c *client.Client, log *logger) (int, error) {
	stream, err := c.WatchPet(ctx, 1)
	if err != nil {
		return 0, err
	}
	defer stream.Close()
	for stream.Next() {
		log.printf("client  event %d (id %s): %s", stream.Delivered(), stream.EventID(), stream.Current().Kind)
	}
	return stream.Delivered(), stream.Err()
}

// caller logs calls: a heading per call, one line per retry, and the outcome.
type caller struct {
	log *logger

	mu      sync.Mutex
	retries int
	start   time.Time
}

// begin starts the log of one call; the lines of rule say what it shows.
func (c *caller) begin(operation string, rule ...string) {
	c.mu.Lock()
	c.retries, c.start = 0, time.Now()
	c.mu.Unlock()
	c.log.printf("")
	for i, line := range rule {
		if i == 0 {
			c.log.printf("== %s: %s", operation, line)
		} else {
			c.log.printf("   %s", line)
		}
	}
}

// onRetry is the client's OnRetry hook: it runs before each wait.
func (c *caller) onRetry(ev client.RetryEvent) {
	c.mu.Lock()
	c.retries++
	c.mu.Unlock()
	c.log.printf("client  attempt %d failed: %s; retrying in %v", ev.Attempt, why(ev), ev.Wait.Round(time.Millisecond))
}

// end logs the outcome of the call begun last.
func (c *caller) end(err error, format string, args ...any) {
	c.mu.Lock()
	attempts, took := c.retries+1, time.Since(c.start).Round(time.Millisecond)
	c.mu.Unlock()
	if apiErr, ok := errors.AsType[*client.APIError](err); ok {
		attempts = apiErr.Attempts
	}
	if err != nil {
		c.log.printf("result  failed after %s in %v: %v", plural(attempts, "attempt"), took, err)
		return
	}
	c.log.printf("result  ok after %s in %v: %s", plural(attempts, "attempt"), took, fmt.Sprintf(format, args...))
}

// endWalk logs the outcome of a walk over pages begun last, which took attempts in all.
func (c *caller) endWalk(err error, attempts int, format string, args ...any) {
	c.mu.Lock()
	took := time.Since(c.start).Round(time.Millisecond)
	c.mu.Unlock()
	if err != nil {
		c.log.printf("result  failed in %v: %v", took, err)
		return
	}
	c.log.printf("result  ok after %s in all in %v: %s", plural(attempts, "attempt"), took, fmt.Sprintf(format, args...))
}

// why says in a few words why an attempt failed.
func why(ev client.RetryEvent) string {
	if ev.Err == nil {
		return fmt.Sprintf("%d %s", ev.StatusCode, http.StatusText(ev.StatusCode))
	}
	err := ev.Err
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
		return "could not connect (" + op.Err.Error() + "), so nothing was sent"
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within the attempt timeout"
	case errors.Is(err, io.EOF):
		return "the connection closed before an answer"
	}
	return err.Error()
}

func petText(p *client.Pet) string {
	if p == nil {
		return "no pet"
	}
	s := fmt.Sprintf("pet %d %q (%s)", p.ID, p.Name, p.Species)
	if p.FedTimes != nil {
		s += fmt.Sprintf(", fed %s in all", plural(int(*p.FedTimes), "time"))
	}
	return s
}

func orderText(o *client.Order) string {
	if o == nil || o.ID == nil {
		return "no order"
	}
	return fmt.Sprintf("order %d for pet %d", *o.ID, o.PetID)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func ptr[T any](v T) *T { return &v }

// logger writes lines to w, one at a time; it keeps the first write error.
type logger struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format+"\n", args...)
	}
}
