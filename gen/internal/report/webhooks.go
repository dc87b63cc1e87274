package report

import (
	"strings"
	"time"

	"github.com/retrygen/retrygen/gen/model"
)

// maxMDWebhooks bounds the webhooks a Markdown plan lists, so that it fits a comment.
const maxMDWebhooks = 40

// webhookRows are the rows of the plan's webhook table, each cell formatted by cell:
// WEBHOOK, METHOD, SCHEME, ID, TTL, ROUTE; with wide, where each was set.
func webhookRows(hooks []*model.Webhook, wide bool, cell func(string) string) [][]string {
	var rows [][]string
	for _, h := range hooks {
		name := h.Name
		if h.Callback != "" {
			name += " of " + h.Callback
		}
		scheme, id, ttl := h.Signature.SchemeText(), h.ID.Text(), "-"
		if h.ID.In != "" {
			ttl = shortDuration(h.ID.TTL)
		}
		if wide {
			if h.Signature != nil {
				scheme += " (" + h.Signature.At + ")"
			}
			if h.ID.At != "" {
				id += " (" + h.ID.At + ")"
			} else if h.ID.From != "" {
				id += " (" + h.ID.From + ")"
			}
		}
		rows = append(rows, []string{cell(cutMiddle(name, 60)), cell(h.Method), cell(scheme), cell(id), cell(ttl), cell(cutMiddle(routeText(h), 60))})
	}
	return rows
}

// routeText says how the receiver recognises the webhook's deliveries: "type=batch.cancelled",
// "path …/data", "alone", or "-" when it cannot tell them apart from the others'.
func routeText(h *model.Webhook) string {
	switch {
	case h.Member != "":
		return h.Member + "=" + h.Event
	case h.Path != "":
		return "path …" + h.Path
	}
	return "-"
}

// webhookJSON is the entry of `retrygen plan -json` for one webhook, after the operations'.
func webhookJSON(h *model.Webhook) object {
	sig := object{{"scheme", h.Signature.SchemeText()}}
	if s := h.Signature; s != nil {
		tol := s.Tolerance
		if tol == 0 && s.Scheme != "github-sha256" && (s.Scheme != "hmac" || s.Timestamp != "") {
			tol = 5 * time.Minute
		}
		sig = append(sig, member{"tolerance", tol.String()}, member{"from", string(s.From)}, member{"at", s.At})
	}
	return object{
		{"webhook", h.Name},
		{"callback", h.Callback},
		{"method", h.Method},
		{"goMethod", h.HandlerMethod},
		{"signature", sig},
		{"id", object{{"in", h.ID.In}, {"name", h.ID.Name}, {"ttl", h.ID.TTL.String()}, {"from", h.ID.From}, {"at", h.ID.At}}},
		{"route", routeText(h)},
	}
}

// shortDuration writes d without zero minutes and seconds: "76h", "90m", "30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
