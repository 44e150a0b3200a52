// Prints the version of the pinned solc-js.
import solc from "solc";
console.log(solc.version());
