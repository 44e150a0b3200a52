package chain

import "runtime"

func runtimeGOMAXPROCS() int { return runtime.GOMAXPROCS(0) }
