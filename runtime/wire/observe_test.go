package wire

import (
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// A walk is one call for the observer, its pages calls under it: a 503 on the second
// page is retried within that page's call.
func TestObserverSeesAWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			switch req.URL.Query().Get("page") {
			case "":
				return 200, http.Header{"Link": {`</v1/items?page=2>; rel="next"`}}, body([]string{"a"})
			case "2":
				if n == 2 {
					return 503, nil, `{}`
				}
				return 200, http.Header{"Link": {`</v1/items?page=3>; rel="next"`}}, body([]string{"b"})
			}
			return 200, nil, body([]string{"c"})
		}}
		rec := new(retrytest.Recorder)
		if _, _, err := collect(walk(pageClient(t, s, WithObserver(rec)), &Pager{Kind: PageLink}, nil)); err != nil {
			t.Fatal(err)
		}
		calls := rec.Calls()
		if len(calls) != 4 {
			t.Fatalf("%d calls, want the walk and its 3 pages", len(calls))
		}
		w := calls[0]
		if w.Info.Kind != runtime.KindWalk || w.Info.Method != "GET" || w.Info.Server != "https://api.example.com" || w.Info.URL != "" ||
			!w.Ended || w.Result.Attempts != 3 || w.Result.Stop != runtime.StopSucceeded || len(w.Attempts) != 0 {
			t.Errorf("walk %+v", w)
		}
		for i, page := range calls[1:] {
			if page.Parent != 0 || page.Info.Kind != runtime.KindRequest || !page.Ended {
				t.Errorf("page %d: %+v, want a call under the walk", i+1, page)
			}
		}
		if got := calls[2].Statuses(); !slices.Equal(got, []int{503, 200}) {
			t.Errorf("page 2's attempts %v, want 503 then 200", got)
		}
	})
}

// A walk that a page's failure ends stops for that page's reason.
func TestObserverSeesAWalkFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			if n == 1 {
				return 200, http.Header{"Link": {`</v1/items?page=2>; rel="next"`}}, body([]string{"a"})
			}
			return 503, nil, `{}`
		}}
		rec := new(retrytest.Recorder)
		if _, _, err := collect(walk(pageClient(t, s, WithObserver(rec)), &Pager{Kind: PageLink}, nil)); err == nil {
			t.Fatal("the walk succeeded")
		}
		w := rec.Calls()[0]
		if w.Result.Attempts != 2 || w.Result.Stop != runtime.StopExhausted || w.Result.StatusCode != 503 {
			t.Errorf("walk result %+v, want 2 pages, exhausted", w.Result)
		}
	})
}

// A stream is one call whose attempts are its connections: one resumed once, whose
// reconnections then run out, has two attempts and one wait, and gave up.
func TestObserverSeesAStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("0")}
		rec := new(retrytest.Recorder)
		c := newCutClient(t, srv, WithJitterSource(func() float64 { return 0 }), WithObserver(rec))
		r := NewRequest("GET")
		r.Operation("watchPets", "/pets/events")
		s, err := OpenStream[string](t.Context(), c, r, &streamPolicy, StreamConfig{}, []CallOption{WithMaxReconnects(1)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := drainStream(s); len(got) != 2 {
			t.Fatalf("events %q, want 2", got)
		}
		calls := rec.Calls()
		if len(calls) != 1 {
			t.Fatalf("%d calls, want 1", len(calls))
		}
		st := calls[0]
		if st.Info.Kind != runtime.KindStream || st.Info.OperationID != "watchPets" || st.Info.URLTemplate != "/pets/events" {
			t.Errorf("info %+v", st.Info)
		}
		if got := st.ResendCounts(); !slices.Equal(got, []int{0, 1}) {
			t.Errorf("resend counts %v, want [0 1]", got)
		}
		if len(st.Waits) != 1 || st.Waits[0].Delay != streamPolicy.InitialDelay || st.Waits[0].Attempt != 1 {
			t.Errorf("waits %+v, want one of %v after attempt 1", st.Waits, streamPolicy.InitialDelay)
		}
		if !st.Ended || st.Result.Stop != runtime.StopExhausted || st.Result.Attempts != 2 || !st.Result.GaveUp {
			t.Errorf("result %+v, want 2 attempts, exhausted, gave up", st.Result)
		}
	})
}

// A stream closed before its end, without Next reading on, is reported ended, once.
func TestObserverSeesAStreamClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cutServer{head: oneEventThenCut("0")}
		rec := new(retrytest.Recorder)
		c := newCutClient(t, srv, WithObserver(rec))
		s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Next()
		s.Close()
		s.Next()
		s.Close()
		calls := rec.Calls()
		if len(calls) != 1 || !calls[0].Ended || calls[0].Result.Stop != runtime.StopCancelled || calls[0].Result.Attempts != 1 {
			t.Errorf("calls %+v, want one, ended, cancelled after 1 attempt", calls)
		}
	})
}

// Closing an observed stream from one goroutine while another reads and reconnects races
// with nothing, and the stream's call ends once.
func TestObservedStreamCloseRacesWithNext(t *testing.T) {
	for i := range 20 {
		synctest.Test(t, func(t *testing.T) {
			srv := &cutServer{head: oneEventThenCut("0")}
			rec := new(retrytest.Recorder)
			c := newCutClient(t, srv, WithObserver(rec))
			s, err := OpenStream[string](t.Context(), c, NewRequest("GET"), &streamPolicy, StreamConfig{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			done := nextInBackground(s)
			time.Sleep(time.Duration(i) * 20 * time.Millisecond)
			go s.Close()
			s.Close()
			<-done
			calls := rec.Calls()
			if len(calls) != 1 || !calls[0].Ended {
				t.Errorf("calls %+v, want one, ended", calls)
			}
		})
	}
}
