package cond

import "testing"

func TestMayHold(t *testing.T) {
	known := func(path string) (Value, bool) {
		switch path {
		case "effect":
			return TextValue("mcp.call.Bank.pay"), true
		case "effect.name":
			return TextValue("mcp.call"), true
		}
		return Value{}, false
	}
	tests := []struct {
		src  string
		want bool
	}{
		{`effect == "mcp.call.Bank.pay"`, true},
		{`effect == "mcp.call.Bank.wire"`, false},
		{`effect == "mcp.call.Bank.wire" and amount > 5`, false},
		{`amount > 5 and effect == "mcp.call.Bank.wire"`, false},
		{`effect == "mcp.call.Bank.wire" or amount > 5`, true},
		{`not (effect.name == "mcp.call")`, false},
		{`not (principal == "x")`, true},
		{`amount > 5`, true},
		{`effect != "mcp.call.Bank.pay" or false`, false},
		{`1 > 2`, false},
		{`effect.name == "mcp.call" and (risk == "" or amount < 3)`, true},
	}
	for _, tt := range tests {
		x, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := MayHold(x, nil, known); got != tt.want {
			t.Errorf("MayHold(%s) = %v, want %v", tt.src, got, tt.want)
		}
	}
}
