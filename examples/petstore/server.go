package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// fault is one scripted misbehaviour of the server, used for one request.
type fault struct {
	status     int           // answer with this status (and a small JSON problem body)
	retryAfter string        // with this Retry-After value
	drop       bool          // close the connection without answering
	hold       time.Duration // wait this long before answering normally
	cutAfter   int           // for a stream: cut the connection after this many events
}

// flakyServer is a petstore server that follows a script: each route answers its scripted
// faults in order, one per request, then behaves. It writes one "server" line per request
// to the log before it answers, so the log reads in the order things happened.
type flakyServer struct {
	log *logger
	mux *http.ServeMux

	mu       sync.Mutex
	script   map[string][]fault // by route pattern, e.g. "GET /v1/pets"
	arrivals map[string]int     // requests per route pattern
	fed      map[string]int     // meals per pet, the side effect of feedPet
	lastID   int64              // of the latest pet created
}

func newFlakyServer(log *logger) *flakyServer {
	s := &flakyServer{
		log:      log,
		mux:      http.NewServeMux(),
		script:   map[string][]fault{},
		arrivals: map[string]int{},
		fed:      map[string]int{},
		lastID:   3,
	}
	pets := []map[string]any{
		{"id": 1, "name": "Rex", "species": "dog"},
		{"id": 2, "name": "Tom", "species": "cat"},
		{"id": 3, "name": "Tweety", "species": "bird"},
	}
	s.routeHeader("GET /v1/pets", func(r *http.Request, _ []byte) (int, any, http.Header) {
		return pagesOf(r, pets)
	})
	s.route("POST /v1/pets", func(_ *http.Request, body []byte) (int, any) {
		s.mu.Lock()
		s.lastID++
		id := s.lastID
		s.mu.Unlock()
		return http.StatusCreated, withID(body, strconv.FormatInt(id, 10))
	})
	s.route("POST /v1/pets/search", func(*http.Request, []byte) (int, any) {
		return http.StatusOK, pets[:1]
	})
	s.route("GET /v1/pets/{petId}", func(r *http.Request, _ []byte) (int, any) {
		return http.StatusOK, withID([]byte(`{"name":"Rex","species":"dog"}`), r.PathValue("petId"))
	})
	s.route("PUT /v1/pets/{petId}", func(r *http.Request, body []byte) (int, any) {
		return http.StatusOK, withID(body, r.PathValue("petId"))
	})
	s.route("DELETE /v1/pets/{petId}", func(*http.Request, []byte) (int, any) {
		return http.StatusNoContent, nil
	})
	s.route("POST /v1/pets/{petId}/feed", func(r *http.Request, _ []byte) (int, any) {
		pet := withID([]byte(`{"name":"Rex","species":"dog"}`), r.PathValue("petId"))
		pet["fedTimes"] = s.meals(r.PathValue("petId"))
		return http.StatusOK, pet
	})
	s.streamRoute("GET /v1/pets/{petId}/events", "demo-token", []string{"fed", "walked", "napped", "groomed"})
	s.route("GET /v1/store/inventory", func(*http.Request, []byte) (int, any) {
		return http.StatusOK, map[string]int{"dog": 1, "cat": 1}
	})
	s.route("POST /v1/store/orders", func(_ *http.Request, body []byte) (int, any) {
		return http.StatusCreated, withID(body, "100")
	})
	return s
}

func (s *flakyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// plan scripts the next requests to the route pattern.
func (s *flakyServer) plan(pattern string, faults ...fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[pattern] = append(s.script[pattern], faults...)
}

func (s *flakyServer) meals(pet string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fed[pet]
}

// pagesOf answers a list request: every pet, or with a limit the page the page parameter
// asks for (from 1), with a Link header to the next page when there is one.
func pagesOf(r *http.Request, pets []map[string]any) (int, any, http.Header) {
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit < 1 {
		return http.StatusOK, pets, nil
	}
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	start := min((page-1)*limit, len(pets))
	end := min(start+limit, len(pets))
	h := http.Header{}
	if end < len(pets) {
		h.Set("Link", fmt.Sprintf(`</v1/pets?limit=%d&page=%d>; rel="next"`, limit, page+1))
	}
	return http.StatusOK, pets[start:end], h
}

// answer returns a route's normal status and JSON body (nil for none).
type answer func(r *http.Request, body []byte) (status int, v any)

// route registers the normal answer of a route, wrapped in the script.
func (s *flakyServer) route(pattern string, normal answer) {
	s.routeHeader(pattern, func(r *http.Request, body []byte) (int, any, http.Header) {
		status, v := normal(r, body)
		return status, v, nil
	})
}

// routeHeader is route for an answer with response headers of its own.
func (s *flakyServer) routeHeader(pattern string, normal func(r *http.Request, body []byte) (int, any, http.Header)) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return // the client went away
		}
		s.mu.Lock()
		s.arrivals[pattern]++
		n := s.arrivals[pattern]
		var f fault
		if q := s.script[pattern]; len(q) > 0 {
			f, s.script[pattern] = q[0], q[1:]
		}
		// Feeding happens once the request is read and the server is up to it (no error
		// status), whatever becomes of the answer.
		fed := 0
		if pattern == "POST /v1/pets/{petId}/feed" && f.status == 0 {
			s.fed[r.PathValue("petId")]++
			fed = s.fed[r.PathValue("petId")]
		}
		s.mu.Unlock()

		line := fmt.Sprintf("server  #%d %s %s", n, r.Method, r.URL.RequestURI())
		if key := r.Header.Get("Idempotency-Key"); key != "" {
			line += " (Idempotency-Key " + key + ")"
		}
		if fed > 0 {
			line += fmt.Sprintf(": pet %s fed (meal %d)", r.PathValue("petId"), fed)
		}
		switch {
		case f.drop:
			s.log.printf("%s -> drops the connection without answering", line)
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
		case f.status != 0:
			extra := ""
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
				extra = ", Retry-After: " + f.retryAfter
			}
			s.log.printf("%s -> %d %s%s", line, f.status, http.StatusText(f.status), extra)
			reply(w, f.status, map[string]any{"code": f.status, "message": http.StatusText(f.status)})
		case f.hold > 0:
			s.log.printf("%s -> holds the answer for %v", line, f.hold)
			select {
			case <-time.After(f.hold):
				status, v, h := normal(r, body)
				replyWith(w, status, v, h)
			case <-r.Context().Done(): // the client gave up on this attempt
			}
		default:
			status, v, h := normal(r, body)
			s.log.printf("%s -> %d %s", line, status, http.StatusText(status))
			replyWith(w, status, v, h)
		}
	})
}

// streamRoute registers a server-sent event stream of kinds that wants the bearer token.
// It asks the client to wait a second before reconnecting (retry: 1000), starts after
// the Last-Event-ID the client sends, and ends with [DONE]; a cutAfter fault cuts the
// connection after that many events.
func (s *flakyServer) streamRoute(pattern, token string, kinds []string) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.arrivals[pattern]++
		n := s.arrivals[pattern]
		var f fault
		if q := s.script[pattern]; len(q) > 0 {
			f, s.script[pattern] = q[0], q[1:]
		}
		s.mu.Unlock()
		line := fmt.Sprintf("server  #%d %s %s", n, r.Method, r.URL.Path)
		last, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		if last > 0 {
			line += fmt.Sprintf(" (Last-Event-ID %d)", last)
		}
		if r.Header.Get("Authorization") != "Bearer "+token {
			s.log.printf("%s -> 401 Unauthorized", line)
			reply(w, http.StatusUnauthorized, map[string]any{"code": 401, "message": "no or wrong bearer token"})
			return
		}
		todo := kinds[min(last, len(kinds)):]
		if f.cutAfter > 0 && f.cutAfter < len(todo) {
			todo = todo[:f.cutAfter]
			s.log.printf("%s -> 200 OK, %s, then the connection is cut", line, plural(len(todo), "event"))
		} else {
			f.cutAfter = 0
			s.log.printf("%s -> 200 OK, %s, then [DONE]", line, plural(len(todo), "event"))
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "retry: 1000\n\n")
		for i, kind := range todo {
			fmt.Fprintf(w, "id: %d\ndata: {\"kind\":%q}\n\n", last+i+1, kind)
			http.NewResponseController(w).Flush()
		}
		if f.cutAfter > 0 {
			panic(http.ErrAbortHandler) // the connection ends mid-stream
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
}

// replyWith is reply with the headers h.
func replyWith(w http.ResponseWriter, status int, v any, h http.Header) {
	for k, vs := range h {
		w.Header()[k] = vs
	}
	reply(w, status, v)
}

// reply writes status and, unless v is nil, v as JSON.
func reply(w http.ResponseWriter, status int, v any) {
	if v == nil {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// withID returns the JSON object body with "id" set to the number id, or an object
// holding only the id if body is not one.
func withID(body []byte, id string) map[string]any {
	m := map[string]any{}
	json.Unmarshal(body, &m)
	if m == nil {
		m = map[string]any{}
	}
	n, _ := strconv.ParseInt(id, 10, 64)
	m["id"] = n
	return m
}
