package stamp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// exactKeys lists the object keys of raw JSON that name no field of t
// exactly. encoding/json matches field names case-insensitively, so a
// legacy "Class" would otherwise pass for "class"; a stamp is a contract and
// its keys match exactly, as the v3 JSON Schema requires of v3 files.
func exactKeys(b []byte, t reflect.Type) []Problem {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil // the strict decode has reported it
	}
	var ps []Problem
	walkKeys(raw, t, "", &ps)
	return ps
}

func walkKeys(raw any, t reflect.Type, at string, ps *[]Problem) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := raw.(map[string]any)
		if !ok {
			return
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				*ps = append(*ps, Problem{Rule: RuleSchema, Field: join(at, k), Message: fmt.Sprintf("unknown field %q (field names match exactly)", k)})
				continue
			}
			walkKeys(obj[k], ft, join(at, k), ps)
		}
	case reflect.Slice:
		arr, ok := raw.([]any)
		if !ok {
			return
		}
		for i, v := range arr {
			walkKeys(v, t.Elem(), fmt.Sprintf("%s[%d]", at, i), ps)
		}
	}
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}
