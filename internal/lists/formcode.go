package lists

import (
	"bytes"
	"encoding/json"
	"fmt"

	"coreportal/internal/fault"
)

// Form scripts and web parts run in every viewer's browser, administrators'
// included, with the portal's origin: whoever sets them can act as anyone who
// opens the form. Setting or changing them therefore needs the administrator
// role (as SharePoint's "custom script" setting does); other users with edit
// on the node may still change the rest of formConfig (showStandardForm) and
// send the stored code back unchanged.

// formCode is the code-bearing part of a normalised form_config: per form
// key, its script and its web parts (definition, title, properties, placement).
// Empty scripts and empty web-part arrays count as absent.
func formCode(normalised json.RawMessage) (string, error) {
	var fc FormConfig
	if len(normalised) > 0 {
		if err := json.Unmarshal(normalised, &fc); err != nil {
			return "", fmt.Errorf("decode form_config: %w", err)
		}
	}
	type code struct {
		Script   string        `json:"script,omitempty"`
		WebParts []FormWebPart `json:"webParts,omitempty"`
	}
	out := map[string]code{}
	for k, part := range fc {
		c := code{WebParts: part.WebParts}
		if part.Script != nil {
			c.Script = *part.Script
		}
		for i := range c.WebParts {
			c.WebParts[i].Properties = canonicalJSON(c.WebParts[i].Properties)
		}
		if c.Script != "" || len(c.WebParts) > 0 {
			out[k] = c
		}
	}
	b, err := json.Marshal(out) // map keys are sorted: the encoding is canonical
	return string(b), err
}

// canonicalJSON re-encodes a JSON value so that spacing and key order do not
// count as a change; null and empty objects are the same as absent.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// checkFormCodeChange refuses a non-administrator's change of any script or
// web part; next is the normalised new form_config, stored the current one.
func checkFormCodeChange(isAdmin bool, stored, next json.RawMessage) error {
	if isAdmin {
		return nil
	}
	was, err := formCode(stored)
	if err != nil {
		return err
	}
	now, err := formCode(next)
	if err != nil {
		return err
	}
	if was != now {
		return fault.Forbidden("only administrators can set or change form scripts and web parts (formConfig.*.script, formConfig.*.webParts); send the stored values unchanged")
	}
	return nil
}
