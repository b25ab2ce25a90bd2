(** The classic test's exact forms (analytic/classic.hpp): N clients start together at t = 0 with no
    jitter (strategy none or nojitter), so they stay in lock-step.
    Model (stated here, not derived from the engine): the survivors of a round all start at the same
    time t and all commit at t + 1. In `free` (first-commit-wins) exactly one of them succeeds (the
    tie-break of docs/models.md §1); the others have now failed k + 1 times, sleep the common
    sleep (k + 1) (0 for none; w_(k+1) for nojitter), and start the next round together. In
    `collision` attempts over the same interval overlap, so with two or more survivors nobody
    succeeds. Backs analytic classic (validation cases classic_free_none, classic_free_nojitter,
    classic_collision_never). *)
From Coq Require Import Reals Lra Lia.
From Retrylab Require Import Sleep.
Open Scope R_scope.

(** Attempts made by m lock-step survivors in `free`: m this round, then m − 1 survivors. *)
Fixpoint classic_attempts (m : nat) : nat :=
  match m with
  | O => O
  | S m' => (m + classic_attempts m')%nat
  end.

(** End of the last success, m survivors with k failures each, next round starting at t. *)
Fixpoint classic_makespan (sleep : nat -> R) (m k : nat) (t : R) : R :=
  match m with
  | O => t
  | S O => t + 1
  | S m' => classic_makespan sleep m' (S k) (t + 1 + sleep (S k))
  end.

(** sum_range f k n = f k + f (k+1) + ... + f (k+n−1). *)
Fixpoint sum_range (f : nat -> R) (k n : nat) : R :=
  match n with
  | O => 0
  | S n' => f k + sum_range f (S k) n'
  end.

Theorem classic_total_attempts : forall N : nat,
  (2 * classic_attempts N = N * (N + 1))%nat /\ INR (classic_attempts N) = INR N * (INR N + 1) / 2.
Proof.
  assert (H : forall N, (2 * classic_attempts N = N * (N + 1))%nat).
  { induction N as [| N IH]; [reflexivity |]. simpl classic_attempts. lia. }
  intro N. split; [apply H |].
  apply (Rmult_eq_reg_l 2); [| lra].
  replace 2 with (INR 2) at 1 by reflexivity. rewrite <- mult_INR, H, mult_INR, plus_INR.
  simpl INR. field.
Qed.

Theorem classic_attempts_per_client : forall N : nat, (1 <= N)%nat ->
  INR (classic_attempts N) / INR N = (INR N + 1) / 2.
Proof.
  intros N HN. rewrite (proj2 (classic_total_attempts N)).
  field. apply not_0_INR. lia.
Qed.

Lemma classic_makespan_sum : forall sleep m k t, (1 <= m)%nat ->
  classic_makespan sleep m k t = t + INR m + sum_range sleep (S k) (m - 1).
Proof.
  intros sleep m. induction m as [| m IH]; intros k t Hm; [lia |].
  destruct m as [| m'].
  - simpl. ring.
  - change (classic_makespan sleep (S (S m')) k t)
      with (classic_makespan sleep (S m') (S k) (t + 1 + sleep (S k))).
    rewrite IH by lia.
    replace (S (S m') - 1)%nat with (S (S m' - 1)) by lia.
    simpl sum_range. rewrite (S_INR (S m')). ring.
Qed.

(** free + none: makespan N. *)
Theorem classic_makespan_none : forall N : nat, (1 <= N)%nat ->
  classic_makespan (fun _ => 0) N 0 0 = INR N.
Proof.
  intros N HN. rewrite classic_makespan_sum by exact HN.
  assert (Z : forall k n, sum_range (fun _ => 0) k n = 0).
  { intros k n. revert k. induction n as [| n IH]; intro k; [reflexivity | simpl; rewrite IH; ring]. }
  rewrite Z. ring.
Qed.

(** free + nojitter: makespan N + Σ_(k=1..N−1) w_k, w_k = min(c, b·2^(k−1)). *)
Theorem classic_makespan_nojitter : forall (b c : R) (N : nat), (1 <= N)%nat ->
  classic_makespan (window_width b c) N 0 0 = INR N + sum_range (window_width b c) 1 (N - 1).
Proof. intros b c N HN. rewrite classic_makespan_sum by exact HN. ring. Qed.

(** The header's closed sum: if, among k = 1..N−1, the windows are uncapped (b·2^(k−1) < c) exactly
    for k <= j (j = #{k <= N−1 : b·2^(k−1) < c}, as windows grow with k), then
    Σ_(k=1..N−1) w_k = b·(2^j − 1) + (N − 1 − j)·c. *)
Theorem classic_window_sum : forall (b c : R) (N j : nat), (j <= N - 1)%nat ->
  (forall k, (1 <= k <= j)%nat -> b * 2 ^ (k - 1) < c) ->
  (forall k, (j < k <= N - 1)%nat -> c <= b * 2 ^ (k - 1)) ->
  sum_range (window_width b c) 1 (N - 1) = b * (2 ^ j - 1) + INR (N - 1 - j) * c.
Proof.
  intros b c N j Hj Hlow Hhigh.
  assert (Split : forall f k n1 n2, sum_range f k (n1 + n2) = sum_range f k n1 + sum_range f (k + n1) n2).
  { intros f k n1. revert k. induction n1 as [| n1 IH]; intros k n2.
    - simpl. rewrite Nat.add_0_r. ring.
    - simpl. rewrite IH. replace (S k + n1)%nat with (k + S n1)%nat by lia. ring. }
  assert (E : sum_range (window_width b c) 1 (N - 1)
              = sum_range (window_width b c) 1 j + sum_range (window_width b c) (1 + j) (N - 1 - j)).
  { rewrite <- Split. f_equal. lia. }
  rewrite E.
  assert (Low : forall n k, (1 <= k)%nat -> (k + n - 1 <= j)%nat ->
            sum_range (window_width b c) k n = b * (2 ^ (k + n - 1) - 2 ^ (k - 1))).
  { induction n as [| n IH]; intros k Hk Hkn.
    - simpl. replace (k + 0 - 1)%nat with (k - 1)%nat by lia. ring.
    - simpl sum_range. rewrite IH by lia.
      unfold window_width. rewrite Rmin_right by (left; apply Hlow; lia).
      replace (S k - 1)%nat with (S (k - 1)) by lia.
      replace (S k + n - 1)%nat with (k + S n - 1)%nat by lia. simpl pow. ring. }
  assert (High : forall n k, (j < k)%nat -> (k + n - 1 <= N - 1)%nat -> sum_range (window_width b c) k n = INR n * c).
  { induction n as [| n IH]; intros k Hk Hkn.
    - simpl. ring.
    - simpl sum_range. rewrite IH by lia. unfold window_width. rewrite Rmin_left by (apply Hhigh; lia).
      rewrite S_INR. ring. }
  destruct j as [| j'].
  - simpl sum_range. rewrite High by lia. simpl pow. ring.
  - rewrite Low by lia. rewrite High by lia.
    replace (1 + S j' - 1)%nat with (S j') by lia. simpl (1 - 1)%nat. simpl pow at 2. ring.
Qed.

(** collision + none|nojitter: two attempts over the same interval overlap, so with m >= 2
    lock-step survivors no attempt ever succeeds and the survivors stay m after any number of
    rounds (the run never finishes). *)
Definition overlaps (s1 e1 s2 e2 : R) : Prop := s1 < e2 /\ s2 < e1.

Fixpoint collision_survivors (m rounds : nat) : nat :=
  match rounds with
  | O => m
  | S r => collision_survivors (if (2 <=? m)%nat then m else 0%nat) r
  end.

Theorem classic_collision_never : forall (m rounds : nat) (t : R),
  (2 <= m)%nat ->
  overlaps t (t + 1) t (t + 1) /\ collision_survivors m rounds = m.
Proof.
  intros m rounds t Hm. split; [unfold overlaps; lra |].
  induction rounds as [| r IH]; [reflexivity |].
  destruct m as [| [| m']]; [lia | lia |]. exact IH.
Qed.
