package machine

// NoShortcuts turns off the decision memo and the dry-run reuse of
// decided intents, so that every intent is decided afresh: the
// reference the shortcuts are tested against.
func NoShortcuts(m *Machine) { m.allCompiled = false }
