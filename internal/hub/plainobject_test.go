package hub

import (
	"testing"
)

// plainObject takes the common body (one flat object of distinct, unescaped
// keys) on its own, and leaves every body oneObject refuses, and every one
// it cannot judge cheaply, to oneObject.
func TestPlainObjectTakesOnlyBodiesOneObjectAccepts(t *testing.T) {
	for _, c := range []struct {
		body  string
		plain bool
	}{
		{`{"tool":"get_run","target":"run:work/core/t-9/r-1","shape":"read:meta","correlation_id":"bench-1"}`, true},
		{" \n{\"a\":{\"a\":[1,{\"a\":\"}\\\"{\"}]},\"b\":null}\n", true},
		{`{}`, true},
		{`{"a":1,"a":2}`, false},             // a key given twice
		{`{"a":{"b":1,"b":2}}`, false},       // twice in a nested object
		{`{"a":1,"\u0061":2}`, false},        // an escaped key: oneObject decodes it
		{`[{"a":1}]`, false},                 // not an object
		{`{"a":1}{`, false},                  // trailing data
		{`{"a":1`, false},                    // not valid
		{`null`, false},                      //
		{`{"a":[[[[[[[[[1]]]]]]]]]}`, false}, // deeper than plainDepth
		{`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,` +
			`"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6}`, false}, // more than plainKeys
	} {
		if got := plainObject([]byte(c.body)); got != c.plain {
			t.Errorf("plainObject(%s) = %v, want %v", c.body, got, c.plain)
		}
		if c.plain {
			if err := oneObject([]byte(c.body)); err != nil {
				t.Errorf("oneObject(%s) refused a body plainObject took: %v", c.body, err)
			}
		}
	}
}

// FuzzPlainObject: a body plainObject takes is one oneObject accepts, so
// the shortcut never lets through what the full check refuses.
func FuzzPlainObject(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":1,"a":2}`, `{"a":{"b":[{"b":1}],"b":2}}`, `{"a":"\"","b":"\\"}`, `{"\u0061":1,"a":2}`, ` {"x":[1,2,{"y":null}]} `} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if plainObject(body) {
			if err := oneObject(body); err != nil {
				t.Fatalf("plainObject took %q, which oneObject refuses: %v", body, err)
			}
		}
	})
}
