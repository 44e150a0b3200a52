// Compiles Solidity with the pinned solc-js: reads a standard-JSON input on
// stdin and writes solc's standard-JSON output on stdout. Used by the tests
// of codegen/solidity (go test ./codegen/solidity).
import solc from "solc";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(solc.compile(input));
