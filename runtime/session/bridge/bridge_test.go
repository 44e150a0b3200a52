package bridge_test

import (
	"testing"

	"github.com/capsulang/caps/runtime/session/bridge"
)

// TestBridgeConfig: the environment's settings and their refusals.
func TestBridgeConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "OPENAI_MODEL is not set: set it to the model to ask (and OPENAI_BASE_URL for a server other than OpenAI's, OPENAI_API_KEY when it needs a key)"},
		{map[string]string{"OPENAI_MODEL": "m", "OPENAI_BASE_URL": "ftp://x"}, `OPENAI_BASE_URL "ftp://x" is not an http or https URL (e.g. http://127.0.0.1:8080/v1)`},
		{map[string]string{"OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://models.example.com/v1", "OPENAI_API_KEY": "k"}, "refusing to send OPENAI_API_KEY over plain http to models.example.com: use https, or a server on loopback"},
		{map[string]string{"OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_API_KEY": "k"}, ""},
		{map[string]string{"OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://models.example.com/v1"}, ""},
		{map[string]string{"OPENAI_MODEL": "m"}, ""},
	} {
		c, err := bridge.FromEnv(env(tc.env))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.env, got, tc.want)
		}
		if err == nil && tc.env["OPENAI_BASE_URL"] == "" && c.BaseURL != bridge.DefaultBaseURL {
			t.Errorf("default base URL %q", c.BaseURL)
		}
	}
}
