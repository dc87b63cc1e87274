package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/examples/petstore/client"
)

// The recipe of the generated Policy's doc, p.StatusCodes = append(p.StatusCodes, 409),
// adds 409 to the statuses retried and keeps the others: GetPet's policy leaves its
// StatusCodes to the defaults, and the copy WithPolicyOverride gets holds them.
func TestPolicyDocRecipeAddsAStatus(t *testing.T) {
	const recipe = "p.StatusCodes = append(p.StatusCodes, 409)"
	src, err := os.ReadFile("../examples/petstore/client/client_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "// "+recipe) && !strings.Contains(string(src), " "+recipe+" ") {
		t.Fatalf("the Policy doc no longer gives %q", recipe)
	}
	bubble(t, func(t *testing.T, e *env) {
		srv := e.serve(petstoreAddr, status(503), status(409), reply(200, petJSON))
		c := e.petstore(client.WithPolicyOverride(func(p *client.Policy) {
			p.StatusCodes = append(p.StatusCodes, 409)
		}))
		if _, err := c.GetPet(t.Context(), 7); err != nil {
			t.Fatalf("GetPet: %v, want the 503 and the 409 retried", err)
		}
		if n := srv.count(); n != 3 {
			t.Errorf("%d arrivals, want 3", n)
		}
	})
}
