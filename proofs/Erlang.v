(** Erlang's loss formula (analytic/erlang.hpp): a limit of c places, requests arriving as a
    Poisson stream of rate λ, each holding its place for a time of mean h = 1/μ, a request that
    finds every place taken denied (lost, not queued). Offered load a = λh. The route is the
    M/M/c/c birth–death chain (birth λ in states k < c, death kμ in state k): its stationary law is
    the Poisson law truncated to {0..c}, π_k = (a^k/k!) / Σ_(j<=c) a^j/j!, which satisfies the
    detailed balance equations a·π_k = (k+1)·π_(k+1) (erlang_detailed_balance) and sums to 1
    (erlang_pi_sum); Erlang B is B(c, a) = π_c, and it satisfies the recurrence
    B(0) = 1, B(c+1) = a·B(c)/(c+1 + a·B(c)) (erlang_b_recurrence) the header evaluates, with
    0 <= B <= 1 (erlang_b_bounds).
    Cited assumptions (theorems of queueing theory, not Coq axioms, not proved here):
    - detailed balance of a birth–death chain with a law summing to 1 makes that law the chain's
      unique stationary one (irreducible finite chain);
    - insensitivity of M/G/c/c (Sevastyanov 1957; Kelly, "Reversibility and Stochastic Networks",
      1979, §3.3): the stationary number of places taken has this law for ANY holding-time law of
      mean h (a back-off sleep plus an attempt's service, as the retries-in-flight limit holds);
    - PASTA (Wolff 1982): the fraction of Poisson requests that find all c places taken is π_c.
    Backs analytic erlang_b (validation cases rif-erlang-b-* ). *)
From Coq Require Import Reals Lra Lia.
Open Scope R_scope.

(** The Poisson weight a^k/k! (unnormalised). *)
Definition erlang_w (a : R) (k : nat) : R := a ^ k / INR (fact k).

(** Σ_(j=0..c) a^j/j!. *)
Fixpoint erlang_sum (a : R) (c : nat) : R :=
  match c with
  | O => 1
  | S c' => erlang_sum a c' + erlang_w a (S c')
  end.

(** The stationary law of M/M/c/c: the Poisson law of mean a truncated to {0..c}. *)
Definition erlang_pi (a : R) (c k : nat) : R := erlang_w a k / erlang_sum a c.

(** Erlang B: the probability that all c places are taken. *)
Definition erlang_b (a : R) (c : nat) : R := erlang_pi a c c.

(** The recurrence the header evaluates. *)
Fixpoint erlang_b_rec (a : R) (c : nat) : R :=
  match c with
  | O => 1
  | S c' => a * erlang_b_rec a c' / (INR (S c') + a * erlang_b_rec a c')
  end.

Lemma fact_INR_pos : forall k, 0 < INR (fact k).
Proof. intro k. apply lt_0_INR. pose proof (lt_O_fact k). lia. Qed.

Lemma erlang_w_nonneg : forall a k, 0 <= a -> 0 <= erlang_w a k.
Proof.
  intros a k Ha. unfold erlang_w. apply Rmult_le_pos; [apply pow_le; exact Ha |].
  left. apply Rinv_0_lt_compat, fact_INR_pos.
Qed.

Lemma erlang_w_0 : forall a, erlang_w a 0 = 1.
Proof. intro a. unfold erlang_w. simpl. field. Qed.

(** a^(k+1)/(k+1)! = a·(a^k/k!)/(k+1). *)
Lemma erlang_w_succ : forall a k, erlang_w a (S k) = a * erlang_w a k / INR (S k).
Proof.
  intros a k. unfold erlang_w.
  change (fact (S k)) with (S k * fact k)%nat. rewrite mult_INR.
  pose proof (fact_INR_pos k). assert (0 < INR (S k)) by (apply lt_0_INR; lia).
  simpl pow. field. split; lra.
Qed.

Lemma erlang_sum_pos : forall a c, 0 <= a -> 0 < erlang_sum a c.
Proof.
  intros a c Ha. induction c as [| c IH]; simpl; [lra |].
  pose proof (erlang_w_nonneg a (S c) Ha). lra.
Qed.

(** The normaliser is the partial sum of the weights. *)
Lemma erlang_sum_partial : forall a c, erlang_sum a c = sum_f_R0 (erlang_w a) c.
Proof.
  intros a c. induction c as [| c IH]; simpl.
  - rewrite erlang_w_0. reflexivity.
  - rewrite IH. reflexivity.
Qed.

(** Detailed balance of the M/M/c/c chain (rates in units of μ: birth a below c, death k+1 from
    state k+1): a·π_k = (k+1)·π_(k+1) for every k < c. *)
Theorem erlang_detailed_balance : forall a c k, 0 <= a -> (k < c)%nat ->
  a * erlang_pi a c k = INR (S k) * erlang_pi a c (S k).
Proof.
  intros a c k Ha _. unfold erlang_pi. rewrite erlang_w_succ.
  pose proof (erlang_sum_pos a c Ha). assert (0 < INR (S k)) by (apply lt_0_INR; lia).
  field. split; lra.
Qed.

(** The law sums to 1 over {0..c}, and each π_k is >= 0. *)
Theorem erlang_pi_sum : forall a c, 0 <= a ->
  sum_f_R0 (erlang_pi a c) c = 1 /\ (forall k, 0 <= erlang_pi a c k).
Proof.
  intros a c Ha. pose proof (erlang_sum_pos a c Ha) as Hs. split.
  - unfold erlang_pi.
    assert (H : forall n, sum_f_R0 (fun k => erlang_w a k / erlang_sum a c) n
                          = sum_f_R0 (erlang_w a) n / erlang_sum a c).
    { induction n as [| n IH]; simpl; [reflexivity |]. rewrite IH. field. lra. }
    rewrite H, <- erlang_sum_partial. field. lra.
  - intro k. unfold erlang_pi. apply Rmult_le_pos; [apply erlang_w_nonneg; exact Ha |].
    left. apply Rinv_0_lt_compat. exact Hs.
Qed.

Lemma erlang_b_rec_S : forall a c,
  erlang_b_rec a (S c) = a * erlang_b_rec a c / (INR (S c) + a * erlang_b_rec a c).
Proof. reflexivity. Qed.

Lemma erlang_sum_S : forall a c, erlang_sum a (S c) = erlang_sum a c + erlang_w a (S c).
Proof. reflexivity. Qed.

(** Erlang B is given by the recurrence: B(0) = 1, B(c+1) = a·B(c)/(c+1 + a·B(c)). *)
Theorem erlang_b_recurrence : forall a c, 0 <= a -> erlang_b a c = erlang_b_rec a c.
Proof.
  intros a c Ha. induction c as [| c IH].
  - unfold erlang_b, erlang_pi. simpl. rewrite erlang_w_0. field.
  - rewrite erlang_b_rec_S, <- IH. unfold erlang_b, erlang_pi. rewrite erlang_sum_S, erlang_w_succ.
    pose proof (erlang_sum_pos a c Ha) as Hs. pose proof (erlang_w_nonneg a c Ha) as Hw.
    assert (Hk : 0 < INR (S c)) by (apply lt_0_INR; lia).
    set (k := INR (S c)) in *. set (w := erlang_w a c) in *. set (s := erlang_sum a c) in *.
    assert (0 <= a * w) by (apply Rmult_le_pos; lra).
    assert (H1 : 0 < s + a * w / k).
    { apply Rplus_lt_le_0_compat; [exact Hs |]. unfold Rdiv.
      apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; exact Hk]. }
    assert (H2 : 0 < k + a * (w / s)).
    { apply Rplus_lt_le_0_compat; [exact Hk |]. unfold Rdiv.
      rewrite <- Rmult_assoc. apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; exact Hs]. }
    assert (0 < k * s) by (apply Rmult_lt_0_compat; lra).
    field. repeat split; lra.
Qed.

(** 0 <= B(c, a) <= 1. *)
Theorem erlang_b_bounds : forall a c, 0 <= a -> 0 <= erlang_b a c <= 1.
Proof.
  intros a c Ha. destruct (erlang_pi_sum a c Ha) as [Hsum Hnn]. split; [apply Hnn |].
  unfold erlang_b. rewrite <- Hsum. destruct c as [| c]; simpl; [lra |].
  assert (0 <= sum_f_R0 (erlang_pi a (S c)) c) by (apply cond_pos_sum; exact Hnn).
  lra.
Qed.
