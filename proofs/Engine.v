(** Facts the engine relies on (docs/models.md §1; montecarlo/).
    1. Processor sharing with equal rates preserves start order. Model: the virtual time V(t)
       (dV/dt = 1/n(t), the service each in-flight attempt has received per attempt) is a
       nondecreasing function of time; an attempt started at s ends at the first time e >= s with
       V(e) = V(s) + 1. Then attempts end in the order they started (ps_fifo_order); equivalently
       remaining works keep their order (remaining_work_order).
    2. `free`: an attempt [s, s+1) succeeds iff no successful commit happens in (s, s+1], and at most
       one of several simultaneous commits succeeds. Then any two successes are at least 1 apart
       (free_success_spacing). *)
From Coq Require Import Reals Lra.
Open Scope R_scope.

(** e is the end of an attempt started at s under virtual time V: the first time V reaches V s + 1. *)
Definition ps_end (V : R -> R) (s e : R) : Prop :=
  s <= e /\ V e = V s + 1 /\ (forall t, s <= t < e -> V t < V s + 1).

Theorem ps_fifo_order : forall (V : R -> R) (s1 s2 e1 e2 : R),
  (forall x y, x <= y -> V x <= V y) ->
  s1 <= s2 -> ps_end V s1 e1 -> ps_end V s2 e2 -> e1 <= e2.
Proof.
  intros V s1 s2 e1 e2 Hmono Hs [H1s [H1e H1first]] [H2s [H2e _]].
  destruct (Rle_or_lt e1 e2) as [Hle | Hlt]; [exact Hle | exfalso].
  (* e2 < e1 and s1 <= s2 <= e2: before its end, attempt 1 has not got its unit of service. *)
  assert (Hv : V e2 < V s1 + 1) by (apply H1first; lra).
  pose proof (Hmono s1 s2 Hs). lra.
Qed.

(** In `free` and `collision` every attempt lasts exactly 1, so end order is start order too. *)
Theorem fixed_duration_order : forall s1 s2 : R, s1 <= s2 -> s1 + 1 <= s2 + 1.
Proof. intros s1 s2 H. lra. Qed.

(** The same, said about remaining work: at any time t both attempts are in flight, the remaining
    work of attempt i is V s_i + 1 − V t, and equal rates keep the older one's no larger. *)
Theorem remaining_work_order : forall (V : R -> R) (s1 s2 t : R),
  (forall x y, x <= y -> V x <= V y) -> s1 <= s2 ->
  (V s1 + 1 - V t) <= (V s2 + 1 - V t).
Proof. intros V s1 s2 t Hmono Hs. pose proof (Hmono s1 s2 Hs). lra. Qed.

(** `free`: success is a predicate on commit times (a success at commit time e is the attempt
    [e − 1, e)). The rule: a success at e means no other success in (e − 1, e]. *)
Definition free_rule (success : R -> Prop) : Prop :=
  forall e e', success e -> success e' -> e' <> e -> ~ (e - 1 < e' <= e).

Theorem free_success_spacing : forall (success : R -> Prop) (e1 e2 : R),
  free_rule success -> success e1 -> success e2 -> e1 <> e2 -> Rabs (e2 - e1) >= 1.
Proof.
  intros success e1 e2 Hrule H1 H2 Hne.
  destruct (Rlt_or_le e1 e2) as [Hlt | Hle].
  - pose proof (Hrule e2 e1 H2 H1 Hne) as H.
    rewrite Rabs_pos_eq by lra.
    destruct (Rle_or_lt e1 (e2 - 1)); [lra |]. exfalso. apply H. lra.
  - pose proof (Hrule e1 e2 H1 H2 (not_eq_sym Hne)) as H.
    rewrite Rabs_left1 by lra.
    destruct (Rle_or_lt e2 (e1 - 1)); [lra |]. exfalso. apply H. lra.
Qed.
