package wire

import (
	"encoding/json"
	"testing"
)

// starRepo and starred are GitHub's repository, many of whose members are required, and
// starred-repository, which wraps one with the time it was starred.
type starRepo struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
	Private  bool   `json:"private"`
	HTMLURL  string `json:"html_url"`
	Fork     bool   `json:"fork"`
	URL      string `json:"url"`
	ForksURL string `json:"forks_url"`
	KeysURL  string `json:"keys_url"`
	TagsURL  string `json:"tags_url"`
}

type starred struct {
	StarredAt string   `json:"starred_at"`
	Repo      starRepo `json:"repo"`
}

// starredList is GitHub's answer of the repositories a user starred: anyOf [array of
// starred-repository, array of repository].
type starredList struct {
	_       noCmp `wire:"union"`
	Starred *[]starred
	Repos   *[]starRepo
	Raw     json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v starredList) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *starredList) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// A list whose items fit no variant whole goes to the variant whose items take their
// members, not to one whose items take none of them but miss fewer required fields: a
// partial repository in a starred-repositories answer keeps its fields.
func TestUnionOfListsByTheMembersItsItemsHold(t *testing.T) {
	for _, tt := range []struct {
		json  string
		repos bool
	}{
		{`[{"id":1,"name":"x","full_name":"a/x","html_url":"https://github.com/a/x"}]`, true},
		{`[{"id":1,"name":"x"},{"id":2,"name":"y","fork":true}]`, true},
		{`[{"starred_at":"2024-01-01T00:00:00Z","repo":{"id":1,"name":"x"}}]`, false},
		{`[{"starred_at":"2024-01-01T00:00:00Z"}]`, false},
	} {
		var v starredList
		if err := json.Unmarshal([]byte(tt.json), &v); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		switch {
		case tt.repos && (v.Repos == nil || (*v.Repos)[0].Name != "x"):
			t.Errorf("%s: %+v; want the repositories, with their fields", tt.json, v)
		case !tt.repos && v.Starred == nil:
			t.Errorf("%s: %+v; want the starred repositories", tt.json, v)
		}
	}
}

// An object whose members fit no struct variant whole goes to the one that takes most of
// them, whatever the required fields the others miss.
func TestUnionOfObjectsByTheMembersItHolds(t *testing.T) {
	type list struct {
		_       noCmp `wire:"union"`
		Starred *starred
		Repo    *starRepo
		Raw     json.RawMessage
		//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
		sum uint64
	}
	var v list
	if err := Unmarshal([]byte(`{"id":1,"name":"x","full_name":"a/x"}`), &v); err != nil || v.Repo == nil || v.Repo.FullName != "a/x" {
		t.Errorf("%+v, %v; want the repository", v, err)
	}
}
