-- caps: UNCHECKED: written by caps emit-lean-obligations from module examples.abs.
-- Every theorem below is an obligation, not a proof: it ends in sorry
-- until someone proves it, and caps verify-lean reports it open until
-- Lean accepts the file with no sorry, admit or axiom left in it.
-- Source: examples/abs.caps; obligation ids are those of caps verify-report.

namespace examples_abs

/-- Wrap-around: x brought into [lo, lo + m) (Int's % is the Euclidean
remainder, never negative for m > 0). -/
def capsWrap (m lo x : Int) : Int := (x - lo) % m + lo

def capsWrapI32 (x : Int) : Int := capsWrap 4294967296 (-2147483648) x
def capsWrapI64 (x : Int) : Int := capsWrap 18446744073709551616 (-9223372036854775808) x
def capsWrapU32 (x : Int) : Int := capsWrap 4294967296 0 x
def capsWrapU64 (x : Int) : Int := capsWrap 18446744073709551616 0 x

/-- Division truncating toward zero, from Nat division. -/
def capsTDiv (a b : Int) : Int :=
  let q : Int := ((a.natAbs / b.natAbs : Nat) : Int)
  if decide (a < 0) == decide (b < 0) then q else -q

/-- The remainder of capsTDiv: it takes the dividend's sign. -/
def capsTMod (a b : Int) : Int := a - b * capsTDiv a b

/- Sites:
  0: requires-failed in distance at line 31:15
  1: requires-failed in distance at line 32:15
  3: ensures-failed in distance at line 33:14
  4: requires-failed in clamp at line 46:15
  5: ensures-failed in clamp at line 47:14
  6: ensures-failed in max_u32 at line 61:14
  7: requires-failed in fib at line 71:15
  10: division-by-zero in gcd at line 84:33
  12: requires-failed in midpoint_u64 at line 96:15
  13: division-by-zero in midpoint_u64 at line 98:41
  14: ensures-failed in midpoint_u64 at line 97:14
  15: requires-failed in percent_of at line 109:15
  16: requires-failed in percent_of at line 110:15
  17: requires-failed in percent_of at line 111:15
  18: division-by-zero in percent_of at line 113:11
  19: ensures-failed in percent_of at line 112:14
  20: requires-failed in div_i64 at line 135:15
  21: division-by-zero in div_i64 at line 136:11
  22: requires-failed in rem_i64 at line 147:15
  23: division-by-zero in rem_i64 at line 148:11
  24: division-by-zero in last_digit_u32 at line 158:11
  25: ensures-failed in last_digit_u32 at line 157:14
  26: division-by-zero in is_even at line 193:15
-/

/- Not compiled (outside the subset; caps compile-plan says why):
  checked_div_u64: Option values (no linear-memory ABI yet)
-/

/-- abs_i64, compiled from Capsulang. -/
def abs_i64 (x : Int) : Except String Int :=
  pure (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)

/-- distance, compiled from Capsulang. -/
def distance (a : Int) (b : Int) : Except String Int :=
  if !(((decide (a > (-1000000000000 : Int))) && (decide (a < (1000000000000 : Int))))) then Except.error "requires-failed at site 0 in distance" else
  if !(((decide (b > (-1000000000000 : Int))) && (decide (b < (1000000000000 : Int))))) then Except.error "requires-failed at site 1 in distance" else
  (examples_abs.abs_i64 (capsWrapI64 (a - b))) >>= fun t1 =>
  let l2 := t1
  if !((decide (l2 ≥ (0 : Int)))) then Except.error "ensures-failed at site 3 in distance" else
  pure l2

/-- clamp, compiled from Capsulang. -/
def clamp (x : Int) (lo : Int) (hi : Int) : Except String Int :=
  if !((decide (lo ≤ hi))) then Except.error "requires-failed at site 4 in clamp" else
  let l3 := (if (decide (x < lo)) then lo else (if (decide (x > hi)) then hi else x))
  if !(((decide (l3 ≥ lo)) && (decide (l3 ≤ hi)))) then Except.error "ensures-failed at site 5 in clamp" else
  pure l3

/-- max_u32, compiled from Capsulang. -/
def max_u32 (a : Int) (b : Int) : Except String Int :=
  let l2 := (if (decide (a ≥ b)) then a else b)
  if !(((decide (l2 ≥ a)) && (decide (l2 ≥ b)))) then Except.error "ensures-failed at site 6 in max_u32" else
  pure l2

/-- fib, compiled from Capsulang. -/
partial def fib (n : Int) : Except String Int :=
  if !((decide (n ≤ (90 : Int)))) then Except.error "requires-failed at site 7 in fib" else
  (if (decide (n < (2 : Int))) then (pure n) else ((examples_abs.fib (capsWrapU64 (n - (1 : Int)))) >>= fun t1 =>
    (examples_abs.fib (capsWrapU64 (n - (2 : Int)))) >>= fun t2 =>
    pure (capsWrapU64 (t1 + t2)))) >>= fun t3 =>
  pure t3

/-- gcd, compiled from Capsulang. -/
partial def gcd (a : Int) (b : Int) : Except String Int :=
  (if (b == (0 : Int)) then (pure a) else (if b == 0 then Except.error "division-by-zero at site 10 in gcd" else
    (examples_abs.gcd b (capsWrapU64 (capsTMod a b))) >>= fun t1 =>
    pure t1)) >>= fun t2 =>
  pure t2

/-- midpoint_u64, compiled from Capsulang. -/
def midpoint_u64 (lo : Int) (hi : Int) : Except String Int :=
  if !((decide (lo ≤ hi))) then Except.error "requires-failed at site 12 in midpoint_u64" else
  let l2 := (capsWrapU64 (hi - lo))
  let l3 := (capsWrapU64 (lo + (capsWrapU64 (capsTDiv l2 (2 : Int)))))
  if !(((decide (l3 ≥ lo)) && (decide (l3 ≤ hi)))) then Except.error "ensures-failed at site 14 in midpoint_u64" else
  pure l3

/-- percent_of, compiled from Capsulang. -/
def percent_of (part : Int) (whole : Int) : Except String Int :=
  if !((decide (whole > (0 : Int)))) then Except.error "requires-failed at site 15 in percent_of" else
  if !((decide (part ≤ whole))) then Except.error "requires-failed at site 16 in percent_of" else
  if !((decide (whole ≤ (1000000000000 : Int)))) then Except.error "requires-failed at site 17 in percent_of" else
  if whole == 0 then Except.error "division-by-zero at site 18 in percent_of" else
  let l2 := (capsWrapU64 (capsTDiv (capsWrapU64 (part * (100 : Int))) whole))
  if !((decide (l2 ≤ (100 : Int)))) then Except.error "ensures-failed at site 19 in percent_of" else
  pure l2

/-- div_i64, compiled from Capsulang. -/
def div_i64 (a : Int) (b : Int) : Except String Int :=
  if !((b != (0 : Int))) then Except.error "requires-failed at site 20 in div_i64" else
  if b == 0 then Except.error "division-by-zero at site 21 in div_i64" else
  pure (capsWrapI64 (capsTDiv a b))

/-- rem_i64, compiled from Capsulang. -/
def rem_i64 (a : Int) (b : Int) : Except String Int :=
  if !((b != (0 : Int))) then Except.error "requires-failed at site 22 in rem_i64" else
  if b == 0 then Except.error "division-by-zero at site 23 in rem_i64" else
  pure (capsWrapI64 (capsTMod a b))

/-- last_digit_u32, compiled from Capsulang. -/
def last_digit_u32 (x : Int) : Except String Int :=
  let l1 := (capsWrapU32 (capsTMod x (10 : Int)))
  if !((decide (l1 < (10 : Int)))) then Except.error "ensures-failed at site 25 in last_digit_u32" else
  pure l1

/-- wrap_add_i32, compiled from Capsulang. -/
def wrap_add_i32 (a : Int) (b : Int) : Except String Int :=
  pure (capsWrapI32 (a + b))

/-- decrement_u32, compiled from Capsulang. -/
def decrement_u32 (x : Int) : Except String Int :=
  pure (capsWrapU32 (x - (1 : Int)))

/-- square_u64, compiled from Capsulang. -/
def square_u64 (x : Int) : Except String Int :=
  pure (capsWrapU64 (x * x))

/-- is_even, compiled from Capsulang. -/
def is_even (n : Int) : Except String Bool :=
  pure ((capsWrapU64 (capsTMod n (2 : Int))) == (0 : Int))

/-- exactly_one, compiled from Capsulang. -/
def exactly_one (a : Bool) (b : Bool) : Except String Bool :=
  pure ((a || b) && (!(a && b)))

/-- in_window, compiled from Capsulang. -/
def in_window (x : Int) (lo : Int) (hi : Int) : Except String Bool :=
  pure ((decide (x ≥ lo)) && (decide (x < hi)))

/-- The ranges of the integer types: a value of the type is an Int in it. -/
def capsInI32 (x : Int) : Prop := -2147483648 ≤ x ∧ x < 2147483648
def capsInI64 (x : Int) : Prop := -9223372036854775808 ≤ x ∧ x < 9223372036854775808
def capsInU32 (x : Int) : Prop := 0 ≤ x ∧ x < 4294967296
def capsInU64 (x : Int) : Prop := 0 ≤ x ∧ x < 18446744073709551616

/-! Obligations of abs_i64 -/

/-- The requires of abs_i64: true when every clause holds. -/
def abs_i64.pre (x : Int) : Except String Bool :=
  pure true

/-- The body of abs_i64, without its contracts. -/
def abs_i64.body (x : Int) : Except String Int :=
  pure (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)

/-- examples.abs/abs_i64/no-failure
    at examples/abs.caps:18:11-18:33: (if (< x 0) (- 0 x) x) -/
theorem abs_i64.no_failure :
    ∀ (x : Int),
    capsInI64 x → abs_i64.pre x = Except.ok true →
    ∃ (result : Int), abs_i64.body x = Except.ok result := by
  sorry

/-- examples.abs/abs_i64/example/0
    at examples/abs.caps:19:5-19:29: (example (abs_i64 -7) 7) -/
theorem abs_i64.example_0 :
    examples_abs.abs_i64 (-7 : Int) = Except.ok (7 : Int) := by
  sorry

/-- examples.abs/abs_i64/example/1
    at examples/abs.caps:20:5-20:28: (example (abs_i64 0) 0) -/
theorem abs_i64.example_1 :
    examples_abs.abs_i64 (0 : Int) = Except.ok (0 : Int) := by
  sorry

/-- examples.abs/abs_i64/example/2
    at examples/abs.caps:21:5-21:30: (example (abs_i64 12) 12) -/
theorem abs_i64.example_2 :
    examples_abs.abs_i64 (12 : Int) = Except.ok (12 : Int) := by
  sorry

/-- examples.abs/abs_i64/example/3
    at examples/abs.caps:22:5-22:66: (example (abs_i64 -9223372036854775808) -9223372036854775808) -/
theorem abs_i64.example_3 :
    examples_abs.abs_i64 (-9223372036854775808 : Int) = Except.ok (-9223372036854775808 : Int) := by
  sorry

/-! Obligations of distance -/

/-- The requires of distance: true when every clause holds. -/
def distance.pre (a : Int) (b : Int) : Except String Bool :=
  if !(((decide (a > (-1000000000000 : Int))) && (decide (a < (1000000000000 : Int))))) then pure false else
  if !(((decide (b > (-1000000000000 : Int))) && (decide (b < (1000000000000 : Int))))) then pure false else
  pure true

/-- The body of distance, without its contracts. -/
def distance.body (a : Int) (b : Int) : Except String Int :=
  (examples_abs.abs_i64 (capsWrapI64 (a - b))) >>= fun t1 =>
  pure t1

/-- The ensures 0 of distance, of the inputs and the result. -/
def distance.post_0 (a : Int) (b : Int) (l2 : Int) : Except String Bool :=
  pure (decide (l2 ≥ (0 : Int)))

/-- examples.abs/distance/ensures/0
    at examples/abs.caps:33:14-33:27: (>= result 0) -/
theorem distance.ensures_0 :
    ∀ (a : Int) (b : Int),
    capsInI64 a → capsInI64 b → distance.pre a b = Except.ok true →
    ∀ (result : Int), distance.body a b = Except.ok result →
    distance.post_0 a b result = Except.ok true := by
  sorry

/-- examples.abs/distance/no-failure
    at examples/abs.caps:34:11-34:28: (abs_i64 (- a b)) -/
theorem distance.no_failure :
    ∀ (a : Int) (b : Int),
    capsInI64 a → capsInI64 b → distance.pre a b = Except.ok true →
    ∃ (result : Int), distance.body a b = Except.ok result := by
  sorry

/-- examples.abs/distance/example/0
    at examples/abs.caps:35:5-35:32: (example (distance 3 10) 7) -/
theorem distance.example_0 :
    examples_abs.distance (3 : Int) (10 : Int) = Except.ok (7 : Int) := by
  sorry

/-- examples.abs/distance/example/1
    at examples/abs.caps:36:5-36:32: (example (distance -4 4) 8) -/
theorem distance.example_1 :
    examples_abs.distance (-4 : Int) (4 : Int) = Except.ok (8 : Int) := by
  sorry

/-- examples.abs/distance/example/2
    at examples/abs.caps:37:5-37:33: (example (distance 25 25) 0) -/
theorem distance.example_2 :
    examples_abs.distance (25 : Int) (25 : Int) = Except.ok (0 : Int) := by
  sorry

/-! Obligations of clamp -/

/-- The requires of clamp: true when every clause holds. -/
def clamp.pre (x : Int) (lo : Int) (hi : Int) : Except String Bool :=
  if !((decide (lo ≤ hi))) then pure false else
  pure true

/-- The body of clamp, without its contracts. -/
def clamp.body (x : Int) (lo : Int) (hi : Int) : Except String Int :=
  pure (if (decide (x < lo)) then lo else (if (decide (x > hi)) then hi else x))

/-- The ensures 0 of clamp, of the inputs and the result. -/
def clamp.post_0 (x : Int) (lo : Int) (hi : Int) (l3 : Int) : Except String Bool :=
  pure ((decide (l3 ≥ lo)) && (decide (l3 ≤ hi)))

/-- examples.abs/clamp/ensures/0
    at examples/abs.caps:47:14-47:49: (and (>= result lo) (<= result hi)) -/
theorem clamp.ensures_0 :
    ∀ (x : Int) (lo : Int) (hi : Int),
    capsInI64 x → capsInI64 lo → capsInI64 hi → clamp.pre x lo hi = Except.ok true →
    ∀ (result : Int), clamp.body x lo hi = Except.ok result →
    clamp.post_0 x lo hi result = Except.ok true := by
  sorry

/-- examples.abs/clamp/no-failure
    at examples/abs.caps:48:11-48:46: (if (< x lo) lo (if (> x hi) hi x)) -/
theorem clamp.no_failure :
    ∀ (x : Int) (lo : Int) (hi : Int),
    capsInI64 x → capsInI64 lo → capsInI64 hi → clamp.pre x lo hi = Except.ok true →
    ∃ (result : Int), clamp.body x lo hi = Except.ok result := by
  sorry

/-- examples.abs/clamp/example/0
    at examples/abs.caps:49:5-49:31: (example (clamp 5 0 10) 5) -/
theorem clamp.example_0 :
    examples_abs.clamp (5 : Int) (0 : Int) (10 : Int) = Except.ok (5 : Int) := by
  sorry

/-- examples.abs/clamp/example/1
    at examples/abs.caps:50:5-50:32: (example (clamp -3 0 10) 0) -/
theorem clamp.example_1 :
    examples_abs.clamp (-3 : Int) (0 : Int) (10 : Int) = Except.ok (0 : Int) := by
  sorry

/-- examples.abs/clamp/example/2
    at examples/abs.caps:51:5-51:33: (example (clamp 42 0 10) 10) -/
theorem clamp.example_2 :
    examples_abs.clamp (42 : Int) (0 : Int) (10 : Int) = Except.ok (10 : Int) := by
  sorry

/-- examples.abs/clamp/example/3
    at examples/abs.caps:52:5-52:30: (example (clamp 7 7 7) 7) -/
theorem clamp.example_3 :
    examples_abs.clamp (7 : Int) (7 : Int) (7 : Int) = Except.ok (7 : Int) := by
  sorry

/-! Obligations of max_u32 -/

/-- The requires of max_u32: true when every clause holds. -/
def max_u32.pre (a : Int) (b : Int) : Except String Bool :=
  pure true

/-- The body of max_u32, without its contracts. -/
def max_u32.body (a : Int) (b : Int) : Except String Int :=
  pure (if (decide (a ≥ b)) then a else b)

/-- The ensures 0 of max_u32, of the inputs and the result. -/
def max_u32.post_0 (a : Int) (b : Int) (l2 : Int) : Except String Bool :=
  pure ((decide (l2 ≥ a)) && (decide (l2 ≥ b)))

/-- examples.abs/max_u32/ensures/0
    at examples/abs.caps:61:14-61:47: (and (>= result a) (>= result b)) -/
theorem max_u32.ensures_0 :
    ∀ (a : Int) (b : Int),
    capsInU32 a → capsInU32 b → max_u32.pre a b = Except.ok true →
    ∀ (result : Int), max_u32.body a b = Except.ok result →
    max_u32.post_0 a b result = Except.ok true := by
  sorry

/-- examples.abs/max_u32/no-failure
    at examples/abs.caps:62:11-62:28: (if (>= a b) a b) -/
theorem max_u32.no_failure :
    ∀ (a : Int) (b : Int),
    capsInU32 a → capsInU32 b → max_u32.pre a b = Except.ok true →
    ∃ (result : Int), max_u32.body a b = Except.ok result := by
  sorry

/-- examples.abs/max_u32/example/0
    at examples/abs.caps:63:5-63:30: (example (max_u32 3 9) 9) -/
theorem max_u32.example_0 :
    examples_abs.max_u32 (3 : Int) (9 : Int) = Except.ok (9 : Int) := by
  sorry

/-- examples.abs/max_u32/example/1
    at examples/abs.caps:64:5-64:30: (example (max_u32 9 3) 9) -/
theorem max_u32.example_1 :
    examples_abs.max_u32 (9 : Int) (3 : Int) = Except.ok (9 : Int) := by
  sorry

/-- examples.abs/max_u32/example/2
    at examples/abs.caps:65:5-65:48: (example (max_u32 4294967295 0) 4294967295) -/
theorem max_u32.example_2 :
    examples_abs.max_u32 (4294967295 : Int) (0 : Int) = Except.ok (4294967295 : Int) := by
  sorry

/-! Obligations of fib -/
-- fib is recursive, a partial def: Lean cannot unfold it, so these
-- statements about it need a total definition before they can be proved.

/-- The requires of fib: true when every clause holds. -/
def fib.pre (n : Int) : Except String Bool :=
  if !((decide (n ≤ (90 : Int)))) then pure false else
  pure true

/-- The body of fib, without its contracts. -/
def fib.body (n : Int) : Except String Int :=
  (if (decide (n < (2 : Int))) then (pure n) else ((examples_abs.fib (capsWrapU64 (n - (1 : Int)))) >>= fun t1 =>
    (examples_abs.fib (capsWrapU64 (n - (2 : Int)))) >>= fun t2 =>
    pure (capsWrapU64 (t1 + t2)))) >>= fun t3 =>
  pure t3

/-- examples.abs/fib/no-failure
    at examples/abs.caps:72:11-72:57: (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))) -/
theorem fib.no_failure :
    ∀ (n : Int),
    capsInU64 n → fib.pre n = Except.ok true →
    ∃ (result : Int), fib.body n = Except.ok result := by
  sorry

/-- examples.abs/fib/example/0
    at examples/abs.caps:73:5-73:24: (example (fib 0) 0) -/
theorem fib.example_0 :
    examples_abs.fib (0 : Int) = Except.ok (0 : Int) := by
  sorry

/-- examples.abs/fib/example/1
    at examples/abs.caps:74:5-74:24: (example (fib 1) 1) -/
theorem fib.example_1 :
    examples_abs.fib (1 : Int) = Except.ok (1 : Int) := by
  sorry

/-- examples.abs/fib/example/2
    at examples/abs.caps:75:5-75:26: (example (fib 10) 55) -/
theorem fib.example_2 :
    examples_abs.fib (10 : Int) = Except.ok (55 : Int) := by
  sorry

/-- examples.abs/fib/example/3
    at examples/abs.caps:76:5-76:28: (example (fib 20) 6765) -/
theorem fib.example_3 :
    examples_abs.fib (20 : Int) = Except.ok (6765 : Int) := by
  sorry

/-! Obligations of gcd -/
-- gcd is recursive, a partial def: Lean cannot unfold it, so these
-- statements about it need a total definition before they can be proved.

/-- The requires of gcd: true when every clause holds. -/
def gcd.pre (a : Int) (b : Int) : Except String Bool :=
  pure true

/-- The body of gcd, without its contracts. -/
def gcd.body (a : Int) (b : Int) : Except String Int :=
  (if (b == (0 : Int)) then (pure a) else (if b == 0 then Except.error "division-by-zero at site 10 in gcd" else
    (examples_abs.gcd b (capsWrapU64 (capsTMod a b))) >>= fun t1 =>
    pure t1)) >>= fun t2 =>
  pure t2

/-- examples.abs/gcd/no-failure
    at examples/abs.caps:84:11-84:42: (if (== b 0) a (gcd b (% a b))) -/
theorem gcd.no_failure :
    ∀ (a : Int) (b : Int),
    capsInU64 a → capsInU64 b → gcd.pre a b = Except.ok true →
    ∃ (result : Int), gcd.body a b = Except.ok result := by
  sorry

/-- examples.abs/gcd/example/0
    at examples/abs.caps:85:5-85:28: (example (gcd 48 18) 6) -/
theorem gcd.example_0 :
    examples_abs.gcd (48 : Int) (18 : Int) = Except.ok (6 : Int) := by
  sorry

/-- examples.abs/gcd/example/1
    at examples/abs.caps:86:5-86:26: (example (gcd 7 0) 7) -/
theorem gcd.example_1 :
    examples_abs.gcd (7 : Int) (0 : Int) = Except.ok (7 : Int) := by
  sorry

/-- examples.abs/gcd/example/2
    at examples/abs.caps:87:5-87:27: (example (gcd 17 5) 1) -/
theorem gcd.example_2 :
    examples_abs.gcd (17 : Int) (5 : Int) = Except.ok (1 : Int) := by
  sorry

/-! Obligations of midpoint_u64 -/

/-- The requires of midpoint_u64: true when every clause holds. -/
def midpoint_u64.pre (lo : Int) (hi : Int) : Except String Bool :=
  if !((decide (lo ≤ hi))) then pure false else
  pure true

/-- The body of midpoint_u64, without its contracts. -/
def midpoint_u64.body (lo : Int) (hi : Int) : Except String Int :=
  let l2 := (capsWrapU64 (hi - lo))
  pure (capsWrapU64 (lo + (capsWrapU64 (capsTDiv l2 (2 : Int)))))

/-- The ensures 0 of midpoint_u64, of the inputs and the result. -/
def midpoint_u64.post_0 (lo : Int) (hi : Int) (l3 : Int) : Except String Bool :=
  pure ((decide (l3 ≥ lo)) && (decide (l3 ≤ hi)))

/-- examples.abs/midpoint_u64/ensures/0
    at examples/abs.caps:97:14-97:49: (and (>= result lo) (<= result hi)) -/
theorem midpoint_u64.ensures_0 :
    ∀ (lo : Int) (hi : Int),
    capsInU64 lo → capsInU64 hi → midpoint_u64.pre lo hi = Except.ok true →
    ∀ (result : Int), midpoint_u64.body lo hi = Except.ok result →
    midpoint_u64.post_0 lo hi result = Except.ok true := by
  sorry

/-- examples.abs/midpoint_u64/no-failure
    at examples/abs.caps:98:11-98:53: (let ((span (- hi lo))) (+ lo (/ span 2))) -/
theorem midpoint_u64.no_failure :
    ∀ (lo : Int) (hi : Int),
    capsInU64 lo → capsInU64 hi → midpoint_u64.pre lo hi = Except.ok true →
    ∃ (result : Int), midpoint_u64.body lo hi = Except.ok result := by
  sorry

/-- examples.abs/midpoint_u64/example/0
    at examples/abs.caps:99:5-99:36: (example (midpoint_u64 0 10) 5) -/
theorem midpoint_u64.example_0 :
    examples_abs.midpoint_u64 (0 : Int) (10 : Int) = Except.ok (5 : Int) := by
  sorry

/-- examples.abs/midpoint_u64/example/1
    at examples/abs.caps:100:5-100:35: (example (midpoint_u64 3 4) 3) -/
theorem midpoint_u64.example_1 :
    examples_abs.midpoint_u64 (3 : Int) (4 : Int) = Except.ok (3 : Int) := by
  sorry

/-- examples.abs/midpoint_u64/example/2
    at examples/abs.caps:101:5-101:92: (example (midpoint_u64 18446744073709551614 18446744073709551615) 18446744073709551614) -/
theorem midpoint_u64.example_2 :
    examples_abs.midpoint_u64 (18446744073709551614 : Int) (18446744073709551615 : Int) = Except.ok (18446744073709551614 : Int) := by
  sorry

/-! Obligations of percent_of -/

/-- The requires of percent_of: true when every clause holds. -/
def percent_of.pre (part : Int) (whole : Int) : Except String Bool :=
  if !((decide (whole > (0 : Int)))) then pure false else
  if !((decide (part ≤ whole))) then pure false else
  if !((decide (whole ≤ (1000000000000 : Int)))) then pure false else
  pure true

/-- The body of percent_of, without its contracts. -/
def percent_of.body (part : Int) (whole : Int) : Except String Int :=
  if whole == 0 then Except.error "division-by-zero at site 18 in percent_of" else
  pure (capsWrapU64 (capsTDiv (capsWrapU64 (part * (100 : Int))) whole))

/-- The ensures 0 of percent_of, of the inputs and the result. -/
def percent_of.post_0 (part : Int) (whole : Int) (l2 : Int) : Except String Bool :=
  pure (decide (l2 ≤ (100 : Int)))

/-- examples.abs/percent_of/ensures/0
    at examples/abs.caps:112:14-112:29: (<= result 100) -/
theorem percent_of.ensures_0 :
    ∀ (part : Int) (whole : Int),
    capsInU64 part → capsInU64 whole → percent_of.pre part whole = Except.ok true →
    ∀ (result : Int), percent_of.body part whole = Except.ok result →
    percent_of.post_0 part whole result = Except.ok true := by
  sorry

/-- examples.abs/percent_of/no-failure
    at examples/abs.caps:113:11-113:33: (/ (* part 100) whole) -/
theorem percent_of.no_failure :
    ∀ (part : Int) (whole : Int),
    capsInU64 part → capsInU64 whole → percent_of.pre part whole = Except.ok true →
    ∃ (result : Int), percent_of.body part whole = Except.ok result := by
  sorry

/-- examples.abs/percent_of/example/0
    at examples/abs.caps:114:5-114:34: (example (percent_of 1 3) 33) -/
theorem percent_of.example_0 :
    examples_abs.percent_of (1 : Int) (3 : Int) = Except.ok (33 : Int) := by
  sorry

/-- examples.abs/percent_of/example/1
    at examples/abs.caps:115:5-115:35: (example (percent_of 5 5) 100) -/
theorem percent_of.example_1 :
    examples_abs.percent_of (5 : Int) (5 : Int) = Except.ok (100 : Int) := by
  sorry

/-- examples.abs/percent_of/example/2
    at examples/abs.caps:116:5-116:33: (example (percent_of 0 7) 0) -/
theorem percent_of.example_2 :
    examples_abs.percent_of (0 : Int) (7 : Int) = Except.ok (0 : Int) := by
  sorry

/-! Obligations of div_i64 -/

/-- The requires of div_i64: true when every clause holds. -/
def div_i64.pre (a : Int) (b : Int) : Except String Bool :=
  if !((b != (0 : Int))) then pure false else
  pure true

/-- The body of div_i64, without its contracts. -/
def div_i64.body (a : Int) (b : Int) : Except String Int :=
  if b == 0 then Except.error "division-by-zero at site 21 in div_i64" else
  pure (capsWrapI64 (capsTDiv a b))

/-- examples.abs/div_i64/no-failure
    at examples/abs.caps:136:11-136:18: (/ a b) -/
theorem div_i64.no_failure :
    ∀ (a : Int) (b : Int),
    capsInI64 a → capsInI64 b → div_i64.pre a b = Except.ok true →
    ∃ (result : Int), div_i64.body a b = Except.ok result := by
  sorry

/-- examples.abs/div_i64/example/0
    at examples/abs.caps:137:5-137:30: (example (div_i64 7 2) 3) -/
theorem div_i64.example_0 :
    examples_abs.div_i64 (7 : Int) (2 : Int) = Except.ok (3 : Int) := by
  sorry

/-- examples.abs/div_i64/example/1
    at examples/abs.caps:138:5-138:32: (example (div_i64 -7 2) -3) -/
theorem div_i64.example_1 :
    examples_abs.div_i64 (-7 : Int) (2 : Int) = Except.ok (-3 : Int) := by
  sorry

/-- examples.abs/div_i64/example/2
    at examples/abs.caps:139:5-139:32: (example (div_i64 7 -2) -3) -/
theorem div_i64.example_2 :
    examples_abs.div_i64 (7 : Int) (-2 : Int) = Except.ok (-3 : Int) := by
  sorry

/-! Obligations of rem_i64 -/

/-- The requires of rem_i64: true when every clause holds. -/
def rem_i64.pre (a : Int) (b : Int) : Except String Bool :=
  if !((b != (0 : Int))) then pure false else
  pure true

/-- The body of rem_i64, without its contracts. -/
def rem_i64.body (a : Int) (b : Int) : Except String Int :=
  if b == 0 then Except.error "division-by-zero at site 23 in rem_i64" else
  pure (capsWrapI64 (capsTMod a b))

/-- examples.abs/rem_i64/no-failure
    at examples/abs.caps:148:11-148:18: (% a b) -/
theorem rem_i64.no_failure :
    ∀ (a : Int) (b : Int),
    capsInI64 a → capsInI64 b → rem_i64.pre a b = Except.ok true →
    ∃ (result : Int), rem_i64.body a b = Except.ok result := by
  sorry

/-- examples.abs/rem_i64/example/0
    at examples/abs.caps:149:5-149:30: (example (rem_i64 7 3) 1) -/
theorem rem_i64.example_0 :
    examples_abs.rem_i64 (7 : Int) (3 : Int) = Except.ok (1 : Int) := by
  sorry

/-- examples.abs/rem_i64/example/1
    at examples/abs.caps:150:5-150:32: (example (rem_i64 -7 3) -1) -/
theorem rem_i64.example_1 :
    examples_abs.rem_i64 (-7 : Int) (3 : Int) = Except.ok (-1 : Int) := by
  sorry

/-- examples.abs/rem_i64/example/2
    at examples/abs.caps:151:5-151:31: (example (rem_i64 7 -3) 1) -/
theorem rem_i64.example_2 :
    examples_abs.rem_i64 (7 : Int) (-3 : Int) = Except.ok (1 : Int) := by
  sorry

/-! Obligations of last_digit_u32 -/

/-- The requires of last_digit_u32: true when every clause holds. -/
def last_digit_u32.pre (x : Int) : Except String Bool :=
  pure true

/-- The body of last_digit_u32, without its contracts. -/
def last_digit_u32.body (x : Int) : Except String Int :=
  pure (capsWrapU32 (capsTMod x (10 : Int)))

/-- The ensures 0 of last_digit_u32, of the inputs and the result. -/
def last_digit_u32.post_0 (x : Int) (l1 : Int) : Except String Bool :=
  pure (decide (l1 < (10 : Int)))

/-- examples.abs/last_digit_u32/ensures/0
    at examples/abs.caps:157:14-157:27: (< result 10) -/
theorem last_digit_u32.ensures_0 :
    ∀ (x : Int),
    capsInU32 x → last_digit_u32.pre x = Except.ok true →
    ∀ (result : Int), last_digit_u32.body x = Except.ok result →
    last_digit_u32.post_0 x result = Except.ok true := by
  sorry

/-- examples.abs/last_digit_u32/no-failure
    at examples/abs.caps:158:11-158:19: (% x 10) -/
theorem last_digit_u32.no_failure :
    ∀ (x : Int),
    capsInU32 x → last_digit_u32.pre x = Except.ok true →
    ∃ (result : Int), last_digit_u32.body x = Except.ok result := by
  sorry

/-- examples.abs/last_digit_u32/example/0
    at examples/abs.caps:159:5-159:44: (example (last_digit_u32 4294967295) 5) -/
theorem last_digit_u32.example_0 :
    examples_abs.last_digit_u32 (4294967295 : Int) = Except.ok (5 : Int) := by
  sorry

/-- examples.abs/last_digit_u32/example/1
    at examples/abs.caps:160:5-160:37: (example (last_digit_u32 120) 0) -/
theorem last_digit_u32.example_1 :
    examples_abs.last_digit_u32 (120 : Int) = Except.ok (0 : Int) := by
  sorry

/-! Obligations of wrap_add_i32 -/

/-- The requires of wrap_add_i32: true when every clause holds. -/
def wrap_add_i32.pre (a : Int) (b : Int) : Except String Bool :=
  pure true

/-- The body of wrap_add_i32, without its contracts. -/
def wrap_add_i32.body (a : Int) (b : Int) : Except String Int :=
  pure (capsWrapI32 (a + b))

/-- examples.abs/wrap_add_i32/no-failure
    at examples/abs.caps:168:11-168:18: (+ a b) -/
theorem wrap_add_i32.no_failure :
    ∀ (a : Int) (b : Int),
    capsInI32 a → capsInI32 b → wrap_add_i32.pre a b = Except.ok true →
    ∃ (result : Int), wrap_add_i32.body a b = Except.ok result := by
  sorry

/-- examples.abs/wrap_add_i32/example/0
    at examples/abs.caps:169:5-169:35: (example (wrap_add_i32 2 3) 5) -/
theorem wrap_add_i32.example_0 :
    examples_abs.wrap_add_i32 (2 : Int) (3 : Int) = Except.ok (5 : Int) := by
  sorry

/-- examples.abs/wrap_add_i32/example/1
    at examples/abs.caps:170:5-170:54: (example (wrap_add_i32 2147483647 1) -2147483648) -/
theorem wrap_add_i32.example_1 :
    examples_abs.wrap_add_i32 (2147483647 : Int) (1 : Int) = Except.ok (-2147483648 : Int) := by
  sorry

/-- examples.abs/wrap_add_i32/example/2
    at examples/abs.caps:171:5-171:55: (example (wrap_add_i32 -2147483648 -1) 2147483647) -/
theorem wrap_add_i32.example_2 :
    examples_abs.wrap_add_i32 (-2147483648 : Int) (-1 : Int) = Except.ok (2147483647 : Int) := by
  sorry

/-! Obligations of decrement_u32 -/

/-- The requires of decrement_u32: true when every clause holds. -/
def decrement_u32.pre (x : Int) : Except String Bool :=
  pure true

/-- The body of decrement_u32, without its contracts. -/
def decrement_u32.body (x : Int) : Except String Int :=
  pure (capsWrapU32 (x - (1 : Int)))

/-- examples.abs/decrement_u32/no-failure
    at examples/abs.caps:177:11-177:18: (- x 1) -/
theorem decrement_u32.no_failure :
    ∀ (x : Int),
    capsInU32 x → decrement_u32.pre x = Except.ok true →
    ∃ (result : Int), decrement_u32.body x = Except.ok result := by
  sorry

/-- examples.abs/decrement_u32/example/0
    at examples/abs.caps:178:5-178:35: (example (decrement_u32 10) 9) -/
theorem decrement_u32.example_0 :
    examples_abs.decrement_u32 (10 : Int) = Except.ok (9 : Int) := by
  sorry

/-- examples.abs/decrement_u32/example/1
    at examples/abs.caps:179:5-179:43: (example (decrement_u32 0) 4294967295) -/
theorem decrement_u32.example_1 :
    examples_abs.decrement_u32 (0 : Int) = Except.ok (4294967295 : Int) := by
  sorry

/-! Obligations of square_u64 -/

/-- The requires of square_u64: true when every clause holds. -/
def square_u64.pre (x : Int) : Except String Bool :=
  pure true

/-- The body of square_u64, without its contracts. -/
def square_u64.body (x : Int) : Except String Int :=
  pure (capsWrapU64 (x * x))

/-- examples.abs/square_u64/no-failure
    at examples/abs.caps:185:11-185:18: (* x x) -/
theorem square_u64.no_failure :
    ∀ (x : Int),
    capsInU64 x → square_u64.pre x = Except.ok true →
    ∃ (result : Int), square_u64.body x = Except.ok result := by
  sorry

/-- examples.abs/square_u64/example/0
    at examples/abs.caps:186:5-186:34: (example (square_u64 12) 144) -/
theorem square_u64.example_0 :
    examples_abs.square_u64 (12 : Int) = Except.ok (144 : Int) := by
  sorry

/-- examples.abs/square_u64/example/1
    at examples/abs.caps:187:5-187:40: (example (square_u64 4294967296) 0) -/
theorem square_u64.example_1 :
    examples_abs.square_u64 (4294967296 : Int) = Except.ok (0 : Int) := by
  sorry

/-! Obligations of is_even -/

/-- The requires of is_even: true when every clause holds. -/
def is_even.pre (n : Int) : Except String Bool :=
  pure true

/-- The body of is_even, without its contracts. -/
def is_even.body (n : Int) : Except String Bool :=
  pure ((capsWrapU64 (capsTMod n (2 : Int))) == (0 : Int))

/-- examples.abs/is_even/no-failure
    at examples/abs.caps:193:11-193:25: (== (% n 2) 0) -/
theorem is_even.no_failure :
    ∀ (n : Int),
    capsInU64 n → is_even.pre n = Except.ok true →
    ∃ (result : Bool), is_even.body n = Except.ok result := by
  sorry

/-- examples.abs/is_even/example/0
    at examples/abs.caps:194:5-194:31: (example (is_even 0) true) -/
theorem is_even.example_0 :
    examples_abs.is_even (0 : Int) = Except.ok true := by
  sorry

/-- examples.abs/is_even/example/1
    at examples/abs.caps:195:5-195:32: (example (is_even 7) false) -/
theorem is_even.example_1 :
    examples_abs.is_even (7 : Int) = Except.ok false := by
  sorry

/-- examples.abs/is_even/example/2
    at examples/abs.caps:196:5-196:50: (example (is_even 18446744073709551614) true) -/
theorem is_even.example_2 :
    examples_abs.is_even (18446744073709551614 : Int) = Except.ok true := by
  sorry

/-! Obligations of exactly_one -/

/-- The requires of exactly_one: true when every clause holds. -/
def exactly_one.pre (a : Bool) (b : Bool) : Except String Bool :=
  pure true

/-- The body of exactly_one, without its contracts. -/
def exactly_one.body (a : Bool) (b : Bool) : Except String Bool :=
  pure ((a || b) && (!(a && b)))

/-- examples.abs/exactly_one/no-failure
    at examples/abs.caps:204:11-204:41: (and (or a b) (not (and a b))) -/
theorem exactly_one.no_failure :
    ∀ (a : Bool) (b : Bool),
    exactly_one.pre a b = Except.ok true →
    ∃ (result : Bool), exactly_one.body a b = Except.ok result := by
  sorry

/-- examples.abs/exactly_one/example/0
    at examples/abs.caps:205:5-205:44: (example (exactly_one true false) true) -/
theorem exactly_one.example_0 :
    examples_abs.exactly_one true false = Except.ok true := by
  sorry

/-- examples.abs/exactly_one/example/1
    at examples/abs.caps:206:5-206:44: (example (exactly_one false true) true) -/
theorem exactly_one.example_1 :
    examples_abs.exactly_one false true = Except.ok true := by
  sorry

/-- examples.abs/exactly_one/example/2
    at examples/abs.caps:207:5-207:44: (example (exactly_one true true) false) -/
theorem exactly_one.example_2 :
    examples_abs.exactly_one true true = Except.ok false := by
  sorry

/-- examples.abs/exactly_one/example/3
    at examples/abs.caps:208:5-208:46: (example (exactly_one false false) false) -/
theorem exactly_one.example_3 :
    examples_abs.exactly_one false false = Except.ok false := by
  sorry

/-! Obligations of in_window -/

/-- The requires of in_window: true when every clause holds. -/
def in_window.pre (x : Int) (lo : Int) (hi : Int) : Except String Bool :=
  pure true

/-- The body of in_window, without its contracts. -/
def in_window.body (x : Int) (lo : Int) (hi : Int) : Except String Bool :=
  pure ((decide (x ≥ lo)) && (decide (x < hi)))

/-- examples.abs/in_window/no-failure
    at examples/abs.caps:217:11-217:35: (and (>= x lo) (< x hi)) -/
theorem in_window.no_failure :
    ∀ (x : Int) (lo : Int) (hi : Int),
    capsInI64 x → capsInI64 lo → capsInI64 hi → in_window.pre x lo hi = Except.ok true →
    ∃ (result : Bool), in_window.body x lo hi = Except.ok result := by
  sorry

/-- examples.abs/in_window/example/0
    at examples/abs.caps:218:5-218:38: (example (in_window 5 0 10) true) -/
theorem in_window.example_0 :
    examples_abs.in_window (5 : Int) (0 : Int) (10 : Int) = Except.ok true := by
  sorry

/-- examples.abs/in_window/example/1
    at examples/abs.caps:219:5-219:40: (example (in_window 10 0 10) false) -/
theorem in_window.example_1 :
    examples_abs.in_window (10 : Int) (0 : Int) (10 : Int) = Except.ok false := by
  sorry

/-- examples.abs/in_window/example/2
    at examples/abs.caps:220:5-220:40: (example (in_window -1 0 10) false) -/
theorem in_window.example_2 :
    examples_abs.in_window (-1 : Int) (0 : Int) (10 : Int) = Except.ok false := by
  sorry

/- Not stated here:
  examples.abs/checked_div_u64/no-failure: function checked_div_u64 is outside the Lean target's subset (caps compile-plan says why)
  examples.abs/checked_div_u64/example/0: function checked_div_u64 is outside the Lean target's subset (caps compile-plan says why)
  examples.abs/checked_div_u64/example/1: function checked_div_u64 is outside the Lean target's subset (caps compile-plan says why)
-/

end examples_abs
