package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// A pet store that counts the pets it creates and the meals it serves.
type store struct{ created, fed int }

func (s *store) createPet(w http.ResponseWriter, r *http.Request) {
	s.created++
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(client.Pet{ID: int64(s.created), Name: "Rex", Species: client.SpeciesDog})
}

func (s *store) feedPet(w http.ResponseWriter, r *http.Request) {
	s.fed++
	petJSON(w, r)
}

// Prove that a lost response does not charge twice: the server creates the pet, the answer
// is lost, the client retries with the same idempotency key, and the server replays its
// first answer. One pet, one answer, the work done once.
func TestLostResponseIsReplayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &store{}
		server := retrytest.Idempotent(http.HandlerFunc(s.createPet))
		c, tr := newTestClient(t, server.ServeHTTP, retrytest.LostResponse())
		pet, err := c.CreatePet(context.Background(), client.NewPet{Name: "Rex", Species: client.SpeciesDog})
		if err != nil {
			t.Fatal(err)
		}
		key := tr.Requests()[0].Header.Get("Idempotency-Key")
		if s.created != 1 || server.Runs(key) != 1 || server.Replays() != 1 || pet.ID != 1 {
			t.Errorf("created %d pets (%d runs for key %q, %d replays), got pet %d; want one of each",
				s.created, server.Runs(key), key, server.Replays(), pet.ID)
		}
	})
}

// Without an idempotency key the client does not send the POST again: the meal is served
// once, and the error says that the outcome is unknown.
func TestLostResponseWithoutKeyIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &store{}
		c, tr := newTestClient(t, s.feedPet, retrytest.LostResponse())
		_, err := c.FeedPet(context.Background(), 1, client.Meal{Food: "kibble"})
		if !errors.Is(err, client.ErrNotRetrySafe) || !strings.Contains(err.Error(), "outcome is unknown") {
			t.Errorf("err = %v, want ErrNotRetrySafe saying the outcome is unknown", err)
		}
		if s.fed != 1 || len(tr.Requests()) != 1 {
			t.Errorf("fed %d times in %d attempts, want once", s.fed, len(tr.Requests()))
		}
	})
}
