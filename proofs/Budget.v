(** Retry budgets and retry amplification (analytic/budget.hpp, analytic/amplification.hpp).
    Token bucket: starts full at capacity B, never exceeds B; a retry is allowed only if it leaves
    the bucket at or above the threshold θ, and then costs c; each success adds r (clamped at B).
    For any sequence of events: c · retries <= B − θ + r · successes (token_bucket_bound); θ = 0 is
    the retry bound (B + r·successes)/c.
    Amplification: L layers, each call makes between 1 and a attempts of a call into the layer
    below: bottom calls <= a^L (amplification_bound), = a^L when every call uses all a attempts
    (amplification_exact). With independent failures, the expected bottom calls per top request are
    E_L = Π_(l<L) Σ_(i<a) p^(i·a^l) = Π_(l<L) (1 − p^(a^(l+1)))/(1 − p^(a^l)) (amplification_expected;
    Wald's identity, cited, gives the per-layer product). *)
From Coq Require Import Reals Lra Lia List.
Import ListNotations.
Open Scope R_scope.

(** ---- Token bucket ---- *)

Inductive event := Retry | Success.

Record bucket := { capacity : R; threshold : R; cost : R; refund : R }.

(** One event: returns the new token level and whether a retry was granted. *)
Definition step (b : bucket) (tokens : R) (ev : event) : R * bool :=
  match ev with
  | Retry => if Rle_dec (threshold b) (tokens - cost b) then (tokens - cost b, true) else (tokens, false)
  | Success => (Rmin (capacity b) (tokens + refund b), false)
  end.

Fixpoint run (b : bucket) (tokens : R) (evs : list event) : R * nat * nat :=
  match evs with
  | [] => (tokens, 0%nat, 0%nat)
  | ev :: rest =>
      let (t', granted) := step b tokens ev in
      match run b t' rest with
      | (tf, retries, successes) =>
          (tf, (if granted then S retries else retries),
               (match ev with Success => S successes | Retry => successes end))
      end
  end.

Lemma run_invariant : forall b evs tokens,
  0 <= refund b -> threshold b <= capacity b -> threshold b <= tokens ->
  match run b tokens evs with
  | (tf, retries, successes) =>
      threshold b <= tf /\ tf + cost b * INR retries <= tokens + refund b * INR successes
  end.
Proof.
  intros b evs. induction evs as [| ev rest IH]; intros tokens Hr Hcap Ht.
  - simpl. lra.
  - simpl. destruct ev; simpl.
    + destruct (Rle_dec (threshold b) (tokens - cost b)) as [Hok | Hno].
      * specialize (IH (tokens - cost b) Hr Hcap Hok).
        destruct (run b (tokens - cost b) rest) as [[tf r] s]. rewrite S_INR. lra.
      * specialize (IH tokens Hr Hcap Ht).
        destruct (run b tokens rest) as [[tf r] s]. lra.
    + assert (Hm : threshold b <= Rmin (capacity b) (tokens + refund b) <= tokens + refund b).
      { split; [| apply Rmin_r]. apply Rmin_glb; lra. }
      specialize (IH (Rmin (capacity b) (tokens + refund b)) Hr Hcap (proj1 Hm)).
      destruct (run b (Rmin (capacity b) (tokens + refund b)) rest) as [[tf r] s].
      rewrite S_INR. lra.
Qed.

(** For any finite sequence of retry requests and successes, starting from a full bucket:
    cost · (granted retries) <= capacity − threshold + refund · successes. *)
Theorem token_bucket_bound : forall (b : bucket) (evs : list event),
  0 <= refund b -> threshold b <= capacity b ->
  match run b (capacity b) evs with
  | (_, retries, successes) =>
      cost b * INR retries <= capacity b - threshold b + refund b * INR successes
  end.
Proof.
  intros b evs Hr Hcap.
  pose proof (run_invariant b evs (capacity b) Hr Hcap Hcap) as H.
  destruct (run b (capacity b) evs) as [[tf r] s]. lra.
Qed.

(** ---- Amplification: deterministic worst case ---- *)

Fixpoint nsum (n : nat) (g : nat -> nat) : nat :=
  match n with
  | O => O
  | S n' => (nsum n' g + g n')%nat
  end.

(** A call is identified by its path of attempt indices from the top; attempts p is how many
    attempts (1 try + retries) that call makes of the layer below. Bottom calls reached from a call
    into layer L (layer 0 = the bottom service, one call each). *)
Fixpoint bottom_calls (attempts : list nat -> nat) (L : nat) (path : list nat) : nat :=
  match L with
  | O => 1%nat
  | S L' => nsum (attempts path) (fun i => bottom_calls attempts L' (i :: path))
  end.

Lemma nsum_le : forall n g h, (forall i, (i < n)%nat -> (g i <= h i)%nat) -> (nsum n g <= nsum n h)%nat.
Proof.
  induction n as [| n IH]; intros g h H; simpl; [lia |].
  pose proof (IH g h (fun i Hi => H i ltac:(lia))). pose proof (H n ltac:(lia)). lia.
Qed.

Lemma nsum_const : forall n k, nsum n (fun _ => k) = (n * k)%nat.
Proof. induction n as [| n IH]; intro k; simpl; [reflexivity | rewrite IH; lia]. Qed.

Lemma nsum_ext : forall n g h, (forall i, (i < n)%nat -> g i = h i) -> nsum n g = nsum n h.
Proof.
  induction n as [| n IH]; intros g h H; simpl; [reflexivity |].
  rewrite (IH g h (fun i Hi => H i ltac:(lia))), (H n ltac:(lia)). reflexivity.
Qed.

Theorem amplification_bound : forall (attempts : list nat -> nat) (a L : nat) (path : list nat),
  (forall p, (attempts p <= a)%nat) -> (bottom_calls attempts L path <= a ^ L)%nat.
Proof.
  intros attempts a L. induction L as [| L IH]; intros path Ha; simpl; [lia |].
  apply Nat.le_trans with (nsum (attempts path) (fun _ => a ^ L)%nat).
  - apply nsum_le. intros i _. apply IH, Ha.
  - rewrite nsum_const. apply Nat.mul_le_mono_r, Ha.
Qed.

Theorem amplification_exact : forall (attempts : list nat -> nat) (a L : nat) (path : list nat),
  (forall p, attempts p = a) -> bottom_calls attempts L path = (a ^ L)%nat.
Proof.
  intros attempts a L. induction L as [| L IH]; intros path Ha; simpl; [reflexivity |].
  rewrite (nsum_ext _ _ (fun _ => a ^ L)%nat) by (intros i _; apply IH, Ha).
  rewrite nsum_const, Ha. reflexivity.
Qed.

(** ---- Amplification: expectation under independent failures ---- *)

Fixpoint rsum (n : nat) (f : nat -> R) : R :=
  match n with O => 0 | S n' => rsum n' f + f n' end.

Fixpoint rprod (n : nat) (f : nat -> R) : R :=
  match n with O => 1 | S n' => rprod n' f * f n' end.

Lemma pow_le_one : forall p n, 0 <= p <= 1 -> p ^ n <= 1.
Proof.
  intros p n Hp. induction n as [| n IH]; simpl; [lra |].
  pose proof (pow_le p n (proj1 Hp)). nra.
Qed.

Lemma rsum_ext : forall n f g, (forall i, f i = g i) -> rsum n f = rsum n g.
Proof. intros n f g H. induction n as [| n IH]; simpl; [reflexivity | rewrite IH, H; reflexivity]. Qed.

Lemma pow_swap : forall p i k, (p ^ k) ^ i = p ^ (i * k).
Proof. intros p i k. rewrite <- pow_mult. f_equal. lia. Qed.

(** A call that retries up to a >= 1 attempts, each failing independently with probability q,
    stopping at the first success: P(N = j) = q^(j−1)(1−q) for 1 <= j < a, P(N = a) = q^(a−1). *)
Definition attempts_total_prob (q : R) (a : nat) : R :=
  rsum (a - 1) (fun i => q ^ i * (1 - q)) + q ^ (a - 1).

Definition mean_attempts (q : R) (a : nat) : R :=
  rsum (a - 1) (fun i => INR (i + 1) * (q ^ i * (1 - q))) + INR a * q ^ (a - 1).

Lemma attempts_total_prob_one : forall q a, (1 <= a)%nat -> attempts_total_prob q a = 1.
Proof.
  intros q a Ha. unfold attempts_total_prob.
  replace a with (S (a - 1)) at 2 by lia. replace (S (a - 1) - 1)%nat with (a - 1)%nat by lia.
  generalize (a - 1)%nat. intro n. induction n as [| n IH]; simpl; [ring |].
  simpl in IH. lra.
Qed.

(** E[N] = Σ_(i<a) q^i. *)
Lemma mean_attempts_sum : forall q a, (1 <= a)%nat -> mean_attempts q a = rsum a (fun i => q ^ i).
Proof.
  intros q a Ha. unfold mean_attempts.
  replace a with (S (a - 1)) by lia. replace (S (a - 1) - 1)%nat with (a - 1)%nat by lia.
  generalize (a - 1)%nat. intro n. induction n as [| n IH].
  - simpl. ring.
  - simpl rsum. simpl rsum in IH. rewrite <- IH.
    rewrite !S_INR, plus_INR. simpl INR. simpl pow. ring.
Qed.

Lemma geometric_sum : forall q n, rsum n (fun i => q ^ i) * (1 - q) = 1 - q ^ n.
Proof. intros q n. induction n as [| n IH]; simpl; [ring |]. rewrite Rmult_plus_distr_r, IH. ring. Qed.

Lemma rsum_pow_nonneg : forall p k n, 0 <= p -> 0 <= rsum n (fun i => p ^ (i * k)).
Proof.
  intros p k n Hp. induction n as [| n IH]; simpl; [lra |].
  pose proof (pow_le p (n * k) Hp). lra.
Qed.

Lemma rsum_pow_le : forall p k n, 0 <= p <= 1 -> rsum n (fun i => p ^ (i * k)) <= INR n.
Proof.
  intros p k n Hp. induction n as [| n IH]; [simpl; lra |].
  change (rsum (S n) (fun i => p ^ (i * k))) with (rsum n (fun i => p ^ (i * k)) + p ^ (n * k)).
  rewrite S_INR. pose proof (pow_le_one p (n * k) Hp). lra.
Qed.

Lemma rsum_one : forall n, rsum n (fun i => 1 ^ i) = INR n.
Proof.
  induction n as [| n IH]; [reflexivity |].
  change (rsum (S n) (fun i => 1 ^ i)) with (rsum n (fun i => 1 ^ i) + 1 ^ n).
  rewrite IH, pow1, S_INR. reflexivity.
Qed.

Lemma rprod_nonneg : forall n f, (forall l, 0 <= f l) -> 0 <= rprod n f.
Proof.
  intros n f H. induction n as [| n IH]; simpl; [lra |]. apply Rmult_le_pos; [exact IH | apply H].
Qed.

(** Failure probability of one call into layer l: q_0 = p, q_(l+1) = q_l^a. *)
Fixpoint failure_prob (p : R) (a l : nat) : R :=
  match l with O => p | S l' => failure_prob p a l' ^ a end.

Lemma failure_prob_pow : forall p a l, failure_prob p a l = p ^ (a ^ l).
Proof.
  intros p a l. induction l as [| l IH]; simpl; [ring |].
  rewrite IH, <- pow_mult. f_equal. lia.
Qed.

(** Expected bottom calls per call into layer L: E_0 = 1 and, by Wald's identity (cited: the number
    of attempts N_(l+1) is a stopping time for the i.i.d. costs of the calls into layer l),
    E_(l+1) = E[N_(l+1)] · E_l with N_(l+1) the attempts of a call whose attempts fail w.p. q_l. *)
Fixpoint expected_bottom (p : R) (a L : nat) : R :=
  match L with
  | O => 1
  | S L' => mean_attempts (failure_prob p a L') a * expected_bottom p a L'
  end.

Theorem amplification_expected : forall (p : R) (a L : nat), (1 <= a)%nat ->
  expected_bottom p a L = rprod L (fun l => rsum a (fun i => p ^ (i * a ^ l))) /\
  (0 <= p < 1 -> expected_bottom p a L = rprod L (fun l => (1 - p ^ (a ^ (l + 1))) / (1 - p ^ (a ^ l)))) /\
  (0 <= p <= 1 -> expected_bottom p a L <= INR a ^ L) /\
  expected_bottom 1 a L = INR a ^ L /\
  failure_prob p a L = p ^ (a ^ L).
Proof.
  intros p a L Ha.
  assert (Hterm : forall l, mean_attempts (failure_prob p a l) a = rsum a (fun i => p ^ (i * a ^ l))).
  { intro l. rewrite mean_attempts_sum by exact Ha. rewrite failure_prob_pow.
    apply rsum_ext. intro i. apply pow_swap. }
  assert (H1 : expected_bottom p a L = rprod L (fun l => rsum a (fun i => p ^ (i * a ^ l)))).
  { induction L as [| L IH]; simpl; [reflexivity |]. rewrite IH, Hterm. ring. }
  split; [exact H1 |]. split; [| split; [| split]].
  - intro Hp. rewrite H1. clear H1.
    induction L as [| L IH]; simpl; [reflexivity |]. rewrite IH. f_equal.
    assert (Hq : 0 <= p ^ (a ^ L) < 1).
    { split; [apply pow_le; lra |].
      pose proof (Nat.pow_nonzero a L ltac:(lia)) as Hnz.
      destruct (a ^ L)%nat as [| m]; [lia |]. simpl.
      pose proof (pow_le_one p m ltac:(lra)) as ?. pose proof (pow_le p m ltac:(lra)). nra. }
    assert (E : rsum a (fun i => p ^ (i * a ^ L)) = rsum a (fun i => (p ^ (a ^ L)) ^ i)).
    { apply rsum_ext. intro i. symmetry. apply pow_swap. }
    rewrite E. apply (Rmult_eq_reg_r (1 - p ^ (a ^ L))); [| lra].
    rewrite geometric_sum. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
    rewrite <- pow_mult. f_equal. f_equal. rewrite Nat.add_1_r. simpl. lia.
  - intro Hp. rewrite H1. clear H1.
    induction L as [| L IH]; simpl; [lra |].
    pose proof (rsum_pow_le p (a ^ L) a Hp) as Hs.
    pose proof (rsum_pow_nonneg p (a ^ L) a (proj1 Hp)) as Hs0.
    assert (Hr0 : 0 <= rprod L (fun l => rsum a (fun i => p ^ (i * a ^ l)))).
    { apply rprod_nonneg. intro l. apply rsum_pow_nonneg. lra. }
    rewrite Rmult_comm. apply Rmult_le_compat; [pose proof (pos_INR a); lra | exact Hr0 | exact Hs | exact IH].
  - clear H1 Hterm. induction L as [| L IH]; simpl; [reflexivity |].
    rewrite IH, failure_prob_pow, pow1, mean_attempts_sum by exact Ha.
    rewrite rsum_one. ring.
  - apply failure_prob_pow.
Qed.

Lemma rsum_pow_lt : forall p k n, 0 <= p < 1 -> (1 <= k)%nat -> (2 <= n)%nat ->
  rsum n (fun i => p ^ (i * k)) < INR n.
Proof.
  intros p k n Hp Hk Hn.
  induction n as [| n IH]; [lia |].
  change (rsum (S n) (fun i => p ^ (i * k))) with (rsum n (fun i => p ^ (i * k)) + p ^ (n * k)).
  rewrite S_INR.
  destruct (Nat.eq_dec n 1) as [-> | Hn1].
  - simpl. replace (k + 0)%nat with k by lia.
    assert (p ^ k < 1).
    { destruct k as [| k']; [lia |]. simpl.
      pose proof (pow_le_one p k' ltac:(lra)). pose proof (pow_le p k' ltac:(lra)). nra. }
    lra.
  - pose proof (IH ltac:(lia)). pose proof (pow_le_one p (n * k) ltac:(lra)). lra.
Qed.

(** E_L = a^L only at p = 1: for 0 <= p < 1, a >= 2 and L >= 1 the expected amplification is
    strictly below the worst case. *)
Theorem amplification_expected_strict : forall (p : R) (a L : nat),
  0 <= p < 1 -> (2 <= a)%nat -> (1 <= L)%nat -> expected_bottom p a L < INR a ^ L.
Proof.
  intros p a L Hp Ha HL.
  destruct (amplification_expected p a L ltac:(lia)) as [H1 _]. rewrite H1. clear H1.
  induction L as [| L IH]; [lia |].
  simpl rprod.
  assert (Hf : rsum a (fun i => p ^ (i * a ^ L)) < INR a).
  { apply rsum_pow_lt; [exact Hp | | exact Ha]. pose proof (Nat.pow_nonzero a L ltac:(lia)). lia. }
  assert (Hf0 : 0 <= rsum a (fun i => p ^ (i * a ^ L))) by (apply rsum_pow_nonneg; lra).
  assert (Hpos : 0 < INR a ^ L) by (apply pow_lt; apply lt_0_INR; lia).
  assert (HP : rprod L (fun l => rsum a (fun i => p ^ (i * a ^ l))) <= INR a ^ L).
  { destruct L as [| L']; [simpl; lra |]. left. apply IH. lia. }
  assert (HP0 : 0 <= rprod L (fun l => rsum a (fun i => p ^ (i * a ^ l)))).
  { apply rprod_nonneg. intro l. apply rsum_pow_nonneg. lra. }
  apply Rle_lt_trans with (INR a ^ L * rsum a (fun i => p ^ (i * a ^ L))).
  - apply Rmult_le_compat_r; [exact Hf0 | exact HP].
  - replace (INR a ^ S L) with (INR a ^ L * INR a) by (simpl; ring). apply Rmult_lt_compat_l; assumption.
Qed.
