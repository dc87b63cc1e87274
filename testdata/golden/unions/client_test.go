package unions

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles). The work of a nested union is measured in bytes
// allocated, never in time.

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// allocated returns how many bytes f allocates.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// deepTree is a Tree nested depth deep, each level with a member TreeNode does not
// declare; the innermost is a string.
func deepTree(depth int) []byte {
	return []byte(strings.Repeat(`{"name":"n","x":[1],"child":`, depth) + `"leaf"` + strings.Repeat("}", depth))
}

// deepShape is a Shape nested depth deep through Group.next (a nullable union), each level
// with members its variant does not declare; the innermost is a Circle.
func deepShape(depth int) []byte {
	return []byte(strings.Repeat(`{"kind":"group","owner":"o","next":`, depth) + `{"kind":"circle","r":1,"chip":{"id":2}}` + strings.Repeat("}", depth))
}

type nested struct {
	name string
	json func(depth int) []byte
	into func() any
}

var nestedCases = []nested{
	{"Tree", deepTree, func() any { return new(Tree) }},
	{"Shape", deepShape, func() any { return new(Shape) }},
}

// linear fails the test unless what grows with depth grows in proportion when depth is
// eight times as deep. A buffer that doubles as it grows allocates between one and about
// two and a half times what it ends up holding, and json.Marshal reuses such buffers from a
// pool that collections empty at times of their own: the allocations of one depth vary by
// that much, so a linear cost measures at most 8 × 2.5 = 20 times as much, while a
// quadratic one measures at least 64 / 2.5 ≈ 26 times. Each depth is measured three
// times and its least kept.
func linear(t *testing.T, what string, at func(depth int) uint64, depth int) {
	t.Helper()
	least := func(depth int) uint64 {
		return min(at(depth), at(depth), at(depth))
	}
	small, large := least(depth), least(8*depth)
	t.Logf("%s: %d bytes at depth %d, %d at depth %d", what, small, depth, large, 8*depth)
	if large > 20*small {
		t.Fatalf("%s: %d bytes at depth %d, %d at depth %d: more than linear", what, small, depth, large, 8*depth)
	}
}

// Decoding nested unions allocates in proportion to the JSON: each union's Raw is a part
// of one copy, and no level scans the JSON below it again.
func TestNestedUnionsDecodeInLinearMemory(t *testing.T) {
	for _, c := range nestedCases {
		linear(t, c.name+" decode", func(depth int) uint64 {
			data := c.json(depth)
			return allocated(func() {
				if err := json.Unmarshal(data, c.into()); err != nil {
					t.Fatal(err)
				}
			})
		}, 1000)
	}
}

// Sending back nested unions read from JSON, unchanged or changed at the bottom, is
// linear in the JSON: each union is looked at once.
func TestNestedUnionsEncodeInLinearWork(t *testing.T) {
	for _, c := range nestedCases {
		for _, depth := range []int{8, 1000} {
			linear(t, c.name+" encode", func(depth int) uint64 {
				v := c.into()
				if err := json.Unmarshal(c.json(depth), v); err != nil {
					t.Fatal(err)
				}
				return allocated(func() {
					if _, err := json.Marshal(v); err != nil {
						t.Fatal(err)
					}
				})
			}, depth)
		}
	}
}

// bottomTree returns the innermost node of a Tree.
func bottomTree(t *testing.T, tree *Tree) *TreeNode {
	t.Helper()
	var node *TreeNode
	for tree != nil && tree.TreeNode != nil {
		node = tree.TreeNode
		tree = node.Child
	}
	if node == nil {
		t.Fatal("no node decoded")
	}
	return node
}

// bottomShape returns the innermost shape of a Shape and how deep it is.
func bottomShape(shape *Shape) (*Shape, int) {
	depth := 0
	for shape.Group != nil {
		next, ok := shape.Group.Next.Get()
		if !ok || next == nil {
			break
		}
		shape = next
		depth++
	}
	return shape, depth
}

// Unions nested 9,000 deep (encoding/json allows 10,000) are read whole, written back as
// read when unchanged, and written with the one change otherwise, in both kinds of union.
func TestDeepUnionsBothWays(t *testing.T) {
	const depth = 9000
	data := deepTree(depth)
	var tree Tree
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	node := bottomTree(t, &tree)
	if node.Child == nil || node.Child.String == nil || *node.Child.String != "leaf" {
		t.Fatalf("innermost child: %+v", node.Child)
	}
	out, err := json.Marshal(tree)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("unchanged Tree written as %.80s... (%v)", out, err)
	}
	*node.Child.String = "changed"
	out, err = json.Marshal(tree)
	// Every union above the change is written as it now is, without the members its
	// variant does not declare.
	want := strings.Repeat(`{"child":`, depth) + `"changed"` + strings.Repeat(`,"name":"n"}`, depth)
	if err != nil || string(out) != want {
		t.Fatalf("changed Tree written as %.80s... (%v)", out, err)
	}

	data = deepShape(depth)
	var shape Shape
	if err := json.Unmarshal(data, &shape); err != nil {
		t.Fatal(err)
	}
	bottom, n := bottomShape(&shape)
	if n != depth || bottom.Circle == nil || bottom.Circle.R != 1 {
		t.Fatalf("innermost shape at %d: %+v", n, bottom)
	}
	out, err = json.Marshal(shape)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("unchanged Shape written as %.80s... (%v)", out, err)
	}
	bottom.Circle.R = 2
	out, err = json.Marshal(shape)
	want = strings.Repeat(`{"kind":"group","next":`, depth) + `{"kind":"circle","r":2}` + strings.Repeat("}", depth)
	if err != nil || string(out) != want {
		t.Fatalf("changed Shape written as %.120s... (%v)", out, err)
	}
}

// Unions in arrays and maps, and nullable ones, are written as read when unchanged.
func TestUnionsInArraysAndMapsRoundTrip(t *testing.T) {
	inMap := `{"kind":"group","byName":{"g":{"kind":"group","next":{"kind":"circle","r":1}}}}`
	var m Shape
	if err := json.Unmarshal([]byte(inMap), &m); err != nil {
		t.Fatal(err)
	}
	m.Group.ByName["g"].Group.Kind = ""
	if out, err := json.Marshal(m); err != nil || string(out) != `{"byName":{"g":{"kind":"group","next":{"kind":"circle","r":1}}},"kind":"group"}` {
		t.Fatalf("a nullable union in a map value: %s (%v)", out, err)
	}

	data := `{"kind":"group","children":[{"kind":"circle","r":1,"a":1},{"kind":"group","byName":{"x":{"kind":"circle","r":3,"b":2}},"next":null}],"next":{"kind":"circle","r":4,"c":3}}`
	var s Shape
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatal(err)
	}
	g := s.Group
	if g == nil || len(g.Children) != 2 || g.Children[1].Group == nil || g.Children[1].Group.ByName["x"].Circle == nil || !g.Children[1].Group.Next.IsNull() {
		t.Fatalf("decoded %+v", s)
	}
	out, err := json.Marshal(s)
	if err != nil || string(out) != data {
		t.Fatalf("unchanged: %s (%v)", out, err)
	}
	g.Children[1].Group.ByName["x"].Circle.R = 5
	out, err = json.Marshal(s)
	want := `{"children":[{"kind":"circle","r":1,"a":1},{"byName":{"x":{"kind":"circle","r":5}},"kind":"group","next":null}],"kind":"group","next":{"kind":"circle","r":4,"c":3}}`
	if err != nil || string(out) != want {
		t.Fatalf("changed in a map: %s (%v), want %s", out, err, want)
	}
	// Two unions read from JSON and swapped are written where they now are.
	g.Children[0], g.Children[1] = g.Children[1], g.Children[0]
	out, _ = json.Marshal(s)
	if !strings.HasPrefix(string(out), `{"children":[{"byName"`) {
		t.Fatalf("swapped: %s", out)
	}
}

// A discriminated union read and sent back unchanged keeps the members its variant does
// not declare.
func TestDiscriminatedUnionKeepsUndeclaredMembers(t *testing.T) {
	data := `{"type":"kitty","name":"Tom","owner":"Ann","chip":{"id":7}}`
	var a Animal
	if err := json.Unmarshal([]byte(data), &a); err != nil || a.Cat == nil {
		t.Fatalf("decoded %+v, %v", a, err)
	}
	out, err := json.Marshal(a)
	if err != nil || string(out) != data {
		t.Fatalf("unchanged: %s (%v), want %s", out, err, data)
	}
	a.Cat.Name = Ptr("Felix")
	out, _ = json.Marshal(a)
	if want := `{"name":"Felix","type":"kitty"}`; string(out) != want {
		t.Fatalf("changed: %s, want %s", out, want)
	}
}

// An integer or boolean discriminator is a number or a literal on the wire, read and
// written.
func TestDiscriminatorOfIntegerAndBoolean(t *testing.T) {
	var f Figure
	if err := json.Unmarshal([]byte(`{"sides":4,"side":2}`), &f); err != nil || f.Square == nil || f.Square.Side != 2 {
		t.Fatalf("decoded %+v, %v", f, err)
	}
	out, err := json.Marshal(NewFigure(Triangle{Base: Ptr(3.0)}))
	if want := `{"base":3,"sides":3}`; err != nil || string(out) != want {
		t.Fatalf("Triangle written as %s (%v), want %s", out, err, want)
	}
	var s Switch
	if err := json.Unmarshal([]byte(`{"on":false}`), &s); err != nil || s.Off == nil || s.On != nil {
		t.Fatalf("decoded %+v, %v", s, err)
	}
	out, err = json.Marshal(NewSwitch(On{Level: Ptr(int64(2))}))
	if want := `{"level":2,"on":true}`; err != nil || string(out) != want {
		t.Fatalf("On written as %s (%v), want %s", out, err, want)
	}
}

// A variant sent on its own carries the one discriminator value its schema allows.
func TestVariantAloneCarriesItsDiscriminator(t *testing.T) {
	out, err := json.Marshal(Circle{R: 1})
	if want := `{"kind":"circle","r":1}`; err != nil || string(out) != want {
		t.Fatalf("Circle written as %s (%v), want %s", out, err, want)
	}
	out, _ = json.Marshal(TextPart{Text: "hi"})
	if want := `{"text":"hi","type":"input_text"}`; string(out) != want {
		t.Fatalf("TextPart written as %s, want %s", out, want)
	}
}

// Members name a variant's fields as encoding/json matches them, case aside; a mapping
// written as a percent-encoded pointer selects its schema.
func TestUnionMatching(t *testing.T) {
	var v Vehicle
	if err := json.Unmarshal([]byte(`{"Sails":2}`), &v); err != nil || v.Boat == nil || *v.Boat.Sails != 2 || v.Car != nil {
		t.Fatalf(`{"Sails":2} decoded as %+v (%v)`, v, err)
	}
	var a Animal
	if err := json.Unmarshal([]byte(`{"type":"dog","bark":true}`), &a); err != nil || a.Dog == nil || !*a.Dog.Bark {
		t.Fatalf("dog decoded as %+v (%v)", a, err)
	}
	out, _ := json.Marshal(NewAnimal(Dog{}))
	if want := `{"type":"dog"}`; string(out) != want {
		t.Fatalf("Dog written as %s, want %s", out, want)
	}
	// Both mapping values of Cat select it; the first in order is written.
	if err := json.Unmarshal([]byte(`{"type":"cat"}`), &a); err != nil || a.Cat == nil {
		t.Fatalf("cat decoded as %+v (%v)", a, err)
	}
}

// A union of two lists takes the one whose items fit the elements: repositories are not
// starred repositories.
func TestListUnionTakesTheItemsThatFit(t *testing.T) {
	var r ListStarredResponse
	repos := `[{"id":1,"name":"a","full_name":"o/a","stargazers_count":3},{"id":2,"name":"b","full_name":"o/b"}]`
	if err := json.Unmarshal([]byte(repos), &r); err != nil || r.RepositoryList == nil || r.StarredRepositoryList != nil {
		t.Fatalf("repositories decoded as %+v (%v)", r, err)
	}
	if got := (*r.RepositoryList)[0]; got.FullName != "o/a" || *got.StargazersCount != 3 {
		t.Fatalf("repository %+v", got)
	}
	starred := `[{"starred_at":"2024-03-01T10:00:00Z","repo":{"id":1,"name":"a","full_name":"o/a"}}]`
	if err := json.Unmarshal([]byte(starred), &r); err != nil || r.StarredRepositoryList == nil || r.RepositoryList != nil {
		t.Fatalf("starred repositories decoded as %+v (%v)", r, err)
	}
}

// An array reaches the list variant of a union whose other variant is a union that
// takes no array; an object reaches the variant of the nested union that fits it.
func TestNestedUnionByKind(t *testing.T) {
	var c Content
	if err := json.Unmarshal([]byte(`[{"type":"input_text","text":"hi"},"plain",{"type":"input_image","image_url":"u"}]`), &c); err != nil || c.ContentList == nil || c.ContentItem != nil {
		t.Fatalf("array decoded as %+v (%v)", c, err)
	}
	list := *c.ContentList
	if len(list) != 3 || list[0].TextPart == nil || list[1].String == nil || list[2].ImagePart == nil {
		t.Fatalf("items %+v", list)
	}
	if err := json.Unmarshal([]byte(`{"type":"input_image","image_url":"u"}`), &c); err != nil || c.ContentItem == nil || c.ContentItem.ImagePart == nil {
		t.Fatalf("object decoded as %+v (%v)", c, err)
	}
}

// UserMessage makes the user variant of Message from its text: sent with its role and
// the text as its content, the same as the literal it stands for.
func TestUserMessageFromText(t *testing.T) {
	got, err := json.Marshal(UserMessage("Say hi"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(NewMessage(UserTurn{Content: ContentItem{String: Ptr("Say hi")}}))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"content":"Say hi","role":"user"}` || string(got) != string(want) {
		t.Errorf("UserMessage sends %s, the literal %s", got, want)
	}
}
