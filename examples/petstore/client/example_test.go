package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// newTestClient returns a petstore client whose requests a retrytest.Transport answers
// in memory, with the faults given first and then handler.
func newTestClient(t *testing.T, handler http.HandlerFunc, faults ...retrytest.Fault) (*client.Client, *retrytest.Transport) {
	t.Helper()
	tr := retrytest.NewTransport(handler, faults...)
	c := client.NewClient(client.WithBaseURL("http://petstore.test/v1"),
		client.WithHTTPClient(tr.Client()),
		client.WithJitterSource(rand.New(rand.NewPCG(1, 2)).Float64), // the same waits every run
	)
	return c, tr
}

func petJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(client.Pet{ID: 1, Name: "Rex", Species: client.SpeciesDog})
}

// A 503 and a 429 asking for 2 seconds, then the pet: the call succeeds on its third
// attempt. Inside the synctest bubble the waits pass in virtual time, so the test takes
// microseconds and can check how long the client waited.
func TestGetPetRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, tr := newTestClient(t, petJSON, retrytest.Status(503), retrytest.RetryAfter(429, 2*time.Second))
		start := time.Now()
		pet, err := c.GetPet(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if pet.Name != "Rex" || len(tr.Requests()) != 3 {
			t.Errorf("got %+v after %d attempts", pet, len(tr.Requests()))
		}
		if waited := time.Since(start); waited < 2*time.Second {
			t.Errorf("waited %v: the Retry-After was not respected", waited)
		}
	})
}

// A POST without an idempotency key is sent once: the error says why it was not retried.
// The caller, who knows this one can be repeated, may give it a key for one call.
func TestFeedPetIsNotRetriedWithoutAKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, tr := newTestClient(t, petJSON, retrytest.Reset())
		_, err := c.FeedPet(context.Background(), 1, client.Meal{Food: "kibble"})
		if !errors.Is(err, client.ErrNotRetrySafe) || len(tr.Requests()) != 1 {
			t.Fatalf("err %v after %d attempts, want one attempt and ErrNotRetrySafe", err, len(tr.Requests()))
		}

		tr.Then(retrytest.Reset())
		_, err = c.FeedPet(context.Background(), 1, client.Meal{Food: "kibble"}, client.WithIdempotencyKey("meal-1"))
		if err != nil {
			t.Fatal(err)
		}
		reqs := tr.Requests()[1:]
		if len(reqs) != 2 || reqs[0].Header.Get("Idempotency-Key") != "meal-1" || reqs[1].Header.Get("Idempotency-Key") != "meal-1" {
			t.Errorf("the keyed call sent %d attempts: %+v", len(reqs), reqs)
		}
	})
}

// A declared error model is reached with errors.As, as a value or as a pointer; the
// APIError around it has the status and the attempts.
func TestTypedErrors(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(client.Problem{Code: 404, Message: "no such pet"})
	})
	_, err := c.GetPet(context.Background(), 7)
	var problem client.Problem
	if !errors.As(err, &problem) || problem.Message != "no such pet" {
		t.Errorf("errors.As(err, &problem): %v, %+v", err, problem)
	}
	var pp *client.Problem
	var apiErr *client.APIError
	if !errors.As(err, &pp) || !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Attempts != 1 {
		t.Errorf("err %v", err)
	}
}

// Waits can be switched off for a test that runs outside a synctest bubble: a policy
// whose delays are zero waits not at all (zero means zero).
func TestNoWaits(t *testing.T) {
	tr := retrytest.NewTransport(http.HandlerFunc(petJSON), retrytest.Status(503), retrytest.Status(503))
	var waits []time.Duration
	c := client.NewClient(client.WithBaseURL("http://petstore.test/v1"), client.WithHTTPClient(tr.Client()),
		client.WithPolicyOverride(func(p *client.Policy) {
			p.InitialDelay, p.MaxDelay, p.RetryAfter = 0, 0, false
		}),
		client.WithOnRetry(func(ev client.RetryEvent) { waits = append(waits, ev.Wait) }))
	if _, err := c.GetPet(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 2 || waits[0] != 0 || waits[1] != 0 {
		t.Errorf("waits %v, want two retries without a wait", waits)
	}
}
