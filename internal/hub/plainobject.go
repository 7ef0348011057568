package hub

import (
	"bytes"
	"encoding/json"
)

// The common request body is a small, plain JSON object: a handful of keys,
// none escaped. Checking it token by token (oneObject) made a value of
// every token and a map of every object's keys, about a tenth of a
// confirmation request's CPU in the hub's handler. plainObject answers for
// such a body in one pass without allocating; anything else — invalid
// JSON, not an object, an escaped key, a key given twice, an object of many
// keys — is left to oneObject, which names the problem.

// plainKeys bounds the keys of one object that plainObject compares
// pairwise; an object with more is oneObject's (a map, not n² compares).
const plainKeys = 16

// plainDepth bounds the nesting plainObject follows; deeper is oneObject's.
const plainDepth = 8

// plainObject reports whether body is certainly one valid JSON object in
// which no object names a key twice, with no key escaped. false means "not
// known": the caller checks the body the slow way.
func plainObject(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	body = bytes.TrimLeft(body, " \t\r\n")
	if len(body) == 0 || body[0] != '{' {
		return false
	}
	// The body is valid JSON, so a string opens at a quote outside a string,
	// a key is the first string of an object or the first after a comma in
	// one, and brackets balance.
	type level struct {
		object    bool
		expectKey bool
		keys      [plainKeys][]byte
		n         int
	}
	var stack [plainDepth]level
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{', '[':
			if depth == plainDepth {
				return false
			}
			stack[depth] = level{object: body[i] == '{', expectKey: body[i] == '{'}
			depth++
		case '}', ']':
			depth--
		case ',':
			if top := &stack[depth-1]; top.object {
				top.expectKey = true
			}
		case '"':
			end := i + 1
			for body[end] != '"' {
				if body[end] == '\\' {
					if top := &stack[depth-1]; top.object && top.expectKey {
						return false // an escaped key: compare it decoded
					}
					end++
				}
				end++
			}
			if top := &stack[depth-1]; top.object && top.expectKey {
				key := body[i+1 : end]
				if top.n == plainKeys {
					return false
				}
				for _, k := range top.keys[:top.n] {
					if bytes.Equal(k, key) {
						return false
					}
				}
				top.keys[top.n] = key
				top.n++
				top.expectKey = false
			}
			i = end
		}
	}
	return true
}
