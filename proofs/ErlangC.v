(** Erlang's delay formula (analytic/erlang.hpp: erlang_c, mmc_mean_wait, mmc_wait_survival): c
    servers, one FCFS queue without limit, Poisson arrivals of rate λ, exponential service of rate
    μ, offered load a = λ/μ < c (the M/M/c queue). Rates in units of μ: the number present is a
    birth–death chain with birth a in every state and death min(k, c) in state k. Its unnormalised
    stationary weights are w_k = a^k/k! for k <= c and w_k = w_c·(a/c)^(k−c) above (mmc_w); they
    satisfy detailed balance a·w_k = min(k+1, c)·w_(k+1) (mmc_detailed_balance); the tail above c is
    geometric and sums to w_c·c/(c − a) for 0 <= a < c (mmc_tail_sum); normalised, the law sums to 1
    (mmc_pi_sum). The probability of N >= c is C = c·B/(c − a(1 − B)), B = Erlang.v's erlang_b (the
    identity the code evaluates), and B <= C <= 1 (erlang_c_from_b). The mean wait in mean service
    times, Σ_(k>=c) π_k (k − c + 1)/c, is C/(c − a) (mmc_mean_wait_sum), and the survival law the
    code returns, C·e^(−(c − a)t), is the mixture Σ_(j>=0) π_(c+j)·Σ_(i<=j) e^(−ct)(ct)^i/i! of the
    waits of arrivals finding c + j present (mmc_wait_survival_mixture: a Cauchy product of the
    geometric tail and the series of e^(at)), and integrates over [0, ∞) to that same mean
    (mmc_wait_survival_integral).
    Cited assumptions (theorems of queueing theory, not Coq axioms, not proved here):
    - detailed balance with a law summing to 1 makes that law the chain's unique stationary one
      (irreducible chain, positive recurrent for a < c);
    - PASTA (Wolff 1982): a Poisson arrival sees the stationary law, so it waits with probability
      P(N >= c);
    - an arrival that finds k >= c present waits for k − c + 1 departures, each after an independent
      exponential time of rate c (memorylessness, FCFS), so its mean wait is (k − c + 1)/c and its
      wait exceeds t with probability Σ_(i<=k−c) e^(−ct)(ct)^i/i! (the Erlang(k − c + 1, c)
      survival: fewer than k − c + 1 events of a Poisson process of rate c in [0, t]; Kleinrock,
      Queueing Systems vol. 1, 1975).
    Backs analytic erlang_c, mmc_mean_wait, mmc_wait_survival. *)
From Coq Require Import Reals Lra Lia.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Erlang Ps Hedge.
Open Scope R_scope.

(** The unnormalised stationary weights of M/M/c: a^k/k! up to c, then ·a/c per state. *)
Definition mmc_w (a : R) (c k : nat) : R :=
  if (k <=? c)%nat then erlang_w a k else erlang_w a c * (a / INR c) ^ (k - c).

(** Their total: Σ_(k<c) a^k/k! + (a^c/c!)·c/(c − a). *)
Definition mmc_norm (a : R) (c : nat) : R :=
  erlang_sum a (pred c) + erlang_w a c * INR c / (INR c - a).

(** The stationary law of M/M/c. *)
Definition mmc_pi (a : R) (c k : nat) : R := mmc_w a c k / mmc_norm a c.

(** Erlang C as the code evaluates it from Erlang B. *)
Definition erlang_c (a : R) (c : nat) : R :=
  INR c * erlang_b a c / (INR c - a * (1 - erlang_b a c)).

Lemma mmc_w_below : forall a c k, (k <= c)%nat -> mmc_w a c k = erlang_w a k.
Proof. intros a c k H. unfold mmc_w. apply Nat.leb_le in H. rewrite H. reflexivity. Qed.

Lemma mmc_w_above : forall a c k, (c <= k)%nat ->
  mmc_w a c k = erlang_w a c * (a / INR c) ^ (k - c).
Proof.
  intros a c k H. unfold mmc_w. destruct (k <=? c) eqn:E.
  - apply Nat.leb_le in E. assert (k = c) by lia. subst k. rewrite Nat.sub_diag. simpl. ring.
  - reflexivity.
Qed.

(** Detailed balance (rates in units of μ): a·w_k = min(k+1, c)·w_(k+1) for every k. *)
Theorem mmc_detailed_balance : forall a c k, (0 < c)%nat ->
  a * mmc_w a c k = INR (Nat.min (S k) c) * mmc_w a c (S k).
Proof.
  intros a c k Hc. assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc).
  destruct (Nat.lt_ge_cases k c) as [Hlt | Hge].
  - rewrite (mmc_w_below a c k), (mmc_w_below a c (S k)) by lia.
    rewrite Nat.min_l by lia. rewrite erlang_w_succ. field. apply not_0_INR. lia.
  - rewrite (mmc_w_above a c k Hge), (mmc_w_above a c (S k)) by lia.
    rewrite Nat.min_r by lia. replace (S k - c)%nat with (S (k - c)) by lia.
    rewrite <- tech_pow_Rmult. field. lra.
Qed.

Lemma ratio_bounds : forall a c, (0 < c)%nat -> 0 <= a < INR c -> 0 <= a / INR c < 1.
Proof.
  intros a c Hc Ha. assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc). split.
  - unfold Rdiv. apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; exact Hk].
  - apply (Rmult_lt_reg_r (INR c)); [exact Hk |].
    unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r, Rmult_1_l; lra.
Qed.

(** The geometric tail: Σ_(j>=0) w_(c+j) = w_c·c/(c − a) for 0 <= a < c. *)
Theorem mmc_tail_sum : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  is_series (fun j => mmc_w a c (c + j)) (erlang_w a c * INR c / (INR c - a)).
Proof.
  intros a c Hc Ha. assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc).
  pose proof (ratio_bounds a c Hc Ha) as Hr.
  assert (Hg : Rabs (a / INR c) < 1) by (rewrite Rabs_pos_eq; lra).
  pose proof (is_series_scal_r (erlang_w a c) _ _ (is_series_geom _ Hg)) as H.
  replace (erlang_w a c * INR c / (INR c - a)) with (/ (1 - a / INR c) * erlang_w a c).
  - refine (is_series_ext _ _ _ _ H). intro j. rewrite mmc_w_above by lia.
    replace (c + j - c)%nat with j by lia.
    match goal with |- ?x = ?y => change (@eq R x y) end. ring.
  - field. split; lra.
Qed.

Lemma mmc_w_nonneg : forall a c k, (0 < c)%nat -> 0 <= a -> 0 <= mmc_w a c k.
Proof.
  intros a c k Hc Ha. unfold mmc_w. destruct (k <=? c); [apply erlang_w_nonneg; exact Ha |].
  apply Rmult_le_pos; [apply erlang_w_nonneg; exact Ha | apply pow_le].
  unfold Rdiv. apply Rmult_le_pos; [exact Ha | left; apply Rinv_0_lt_compat, lt_0_INR; exact Hc].
Qed.

Lemma mmc_norm_pos : forall a c, (0 < c)%nat -> 0 <= a < INR c -> 0 < mmc_norm a c.
Proof.
  intros a c Hc Ha. unfold mmc_norm. pose proof (erlang_sum_pos a (pred c) (proj1 Ha)).
  assert (0 <= erlang_w a c * INR c / (INR c - a)).
  { unfold Rdiv. apply Rmult_le_pos; [apply Rmult_le_pos; [apply erlang_w_nonneg; lra | apply pos_INR] |].
    left. apply Rinv_0_lt_compat. lra. }
  lra.
Qed.

(** The weights sum to mmc_norm: the head Σ_(k<c) a^k/k! plus the geometric tail. *)
Lemma mmc_w_series : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  is_series (mmc_w a c) (mmc_norm a c).
Proof.
  intros a c Hc Ha. apply (is_series_decr_n _ c); [exact Hc |].
  match goal with |- is_series _ ?l => replace l with (erlang_w a c * INR c / (INR c - a)) end.
  - exact (mmc_tail_sum a c Hc Ha).
  - rewrite sum_n_Reals. unfold mmc_norm. rewrite erlang_sum_partial.
    rewrite (sum_eq (mmc_w a c) (erlang_w a) (pred c)).
    + unfold plus, opp; simpl. ring.
    + intros i Hi. apply mmc_w_below. lia.
Qed.

(** The stationary law sums to 1 and each π_k is >= 0. *)
Theorem mmc_pi_sum : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  is_series (mmc_pi a c) 1 /\ (forall k, 0 <= mmc_pi a c k).
Proof.
  intros a c Hc Ha. pose proof (mmc_norm_pos a c Hc Ha) as Hz. split.
  - pose proof (is_series_scal_r (/ mmc_norm a c) _ _ (mmc_w_series a c Hc Ha)) as H.
    rewrite Rinv_r in H by lra. refine (is_series_ext _ _ _ _ H). intro k. reflexivity.
  - intro k. unfold mmc_pi, Rdiv. apply Rmult_le_pos; [apply mmc_w_nonneg; [exact Hc | lra] |].
    left. apply Rinv_0_lt_compat. exact Hz.
Qed.

Lemma erlang_sum_pred : forall a c, (0 < c)%nat ->
  erlang_sum a c = erlang_sum a (pred c) + erlang_w a c.
Proof. intros a [| c] Hc; [lia | reflexivity]. Qed.

(** The tail mass w_c·c/(c − a)/Z is the code's c·B/(c − a(1 − B)). *)
Lemma mmc_wait_prob_eq : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  erlang_w a c * INR c / (INR c - a) / mmc_norm a c = erlang_c a c.
Proof.
  intros a c Hc Ha. pose proof (mmc_norm_pos a c Hc Ha) as Hz.
  unfold erlang_c, erlang_b, erlang_pi. unfold mmc_norm in *. rewrite (erlang_sum_pred a c Hc).
  pose proof (erlang_sum_pos a (pred c) (proj1 Ha)) as Hs.
  pose proof (erlang_w_nonneg a c (proj1 Ha)) as Hw.
  assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc).
  set (s := erlang_sum a (pred c)) in *. set (w := erlang_w a c) in *. set (k := INR c) in *.
  assert (Hq : 0 <= w / (s + w)).
  { unfold Rdiv. apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]. }
  assert (0 <= a * (w / (s + w))) by (apply Rmult_le_pos; lra).
  assert (Hd : 0 < k - a * (1 - w / (s + w))) by lra.
  assert (0 < (k - a) * s) by (apply Rmult_lt_0_compat; lra).
  assert (0 <= k * w) by (apply Rmult_le_pos; lra).
  assert (Hd' : 0 < k * s - a * s + k * w) by nra.
  field. repeat split; try lra.
Qed.

(** P(N >= c) = Σ_(j>=0) π_(c+j) is the code's C = c·B/(c − a(1 − B)), and B <= C <= 1. *)
Theorem erlang_c_from_b : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  is_series (fun j => mmc_pi a c (c + j)) (erlang_c a c) /\
  erlang_b a c <= erlang_c a c <= 1.
Proof.
  intros a c Hc Ha. split.
  - rewrite <- (mmc_wait_prob_eq a c Hc Ha).
    pose proof (is_series_scal_r (/ mmc_norm a c) _ _ (mmc_tail_sum a c Hc Ha)) as H.
    refine (is_series_ext _ _ _ _ H). intro j. reflexivity.
  - pose proof (erlang_b_bounds a c (proj1 Ha)) as Hb.
    assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc).
    unfold erlang_c. set (b := erlang_b a c) in *. set (k := INR c) in *.
    assert (0 <= a * b) by (apply Rmult_le_pos; lra).
    assert (Hd : 0 < k - a * (1 - b)) by nra.
    split.
    + apply (Rmult_le_reg_r (k - a * (1 - b))); [exact Hd |].
      unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. nra.
    + apply (Rmult_le_reg_r (k - a * (1 - b))); [exact Hd |].
      unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r, Rmult_1_l by lra. nra.
Qed.

(** Σ_(j>=0) (j+1) r^j = 1/(1 − r)² for 0 <= r < 1. *)
Lemma series_succ_geom : forall r, 0 <= r < 1 ->
  is_series (fun j => INR (S j) * r ^ j) (/ (1 - r) ^ 2).
Proof.
  intros r Hr.
  assert (Hg : Rabs r < 1) by (rewrite Rabs_pos_eq; lra).
  pose proof (is_series_plus _ _ _ _ (series_n_geom r Hr) (is_series_geom r Hg)) as H.
  replace (/ (1 - r) ^ 2) with (plus (r / (1 - r) ^ 2) (/ (1 - r))).
  - refine (is_series_ext _ _ _ _ H). intro j. rewrite S_INR. unfold plus; simpl. ring.
  - unfold plus; simpl. field. lra.
Qed.

(** The mean wait in mean service times: an arrival finding c + j present waits for j + 1
    departures at rate c, and Σ_(j>=0) π_(c+j)·(j+1)/c = C/(c − a). *)
Theorem mmc_mean_wait_sum : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  is_series (fun j => mmc_pi a c (c + j) * (INR (S j) / INR c)) (erlang_c a c / (INR c - a)).
Proof.
  intros a c Hc Ha. assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc).
  pose proof (mmc_norm_pos a c Hc Ha) as Hz.
  pose proof (ratio_bounds a c Hc Ha) as Hr.
  pose proof (is_series_scal_r (erlang_w a c / mmc_norm a c / INR c) _ _
                (series_succ_geom _ Hr)) as H.
  rewrite <- (mmc_wait_prob_eq a c Hc Ha).
  replace (erlang_w a c * INR c / (INR c - a) / mmc_norm a c / (INR c - a))
    with (/ (1 - a / INR c) ^ 2 * (erlang_w a c / mmc_norm a c / INR c)).
  - refine (is_series_ext _ _ _ _ H). intro j. unfold mmc_pi. rewrite mmc_w_above by lia.
    replace (c + j - c)%nat with j by lia.
    match goal with |- ?x = ?y => change (@eq R x y) end. field. split; lra.
  - field. repeat split; lra.
Qed.

(** The survival law the code returns has that mean: ∫_0^∞ C·e^(−(c − a)t) dt = C/(c − a). *)
Theorem mmc_wait_survival_integral : forall a c, (0 < c)%nat -> 0 <= a < INR c ->
  is_RInt_gen (fun t => erlang_c a c * exp (- (INR c - a) * t)) (at_point 0)
    (Rbar_locally p_infty) (erlang_c a c / (INR c - a)).
Proof.
  intros a c Hc Ha.
  assert (Hm : 0 < (INR c - a) / 2) by lra.
  pose proof (is_RInt_gen_scal _ (erlang_c a c) _ (hedge_tail_integral _ 0 Hm)) as H.
  unfold scal in H; simpl in H; unfold mult in H; simpl in H.
  replace (erlang_c a c / (INR c - a))
    with (erlang_c a c * (exp (- ((INR c - a) / 2) * 0) / (2 * ((INR c - a) / 2)))).
  - refine (is_RInt_gen_ext _ _ _ _ H).
    exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
    intros x y _ _ t _.
    replace (- ((INR c - a) / 2) * (2 * t - 0)) with (- (INR c - a) * t) by field. reflexivity.
  - rewrite Rmult_0_r, exp_0. field. lra.
Qed.

(** e^y = Σ_(i>=0) y^i/i! (Coquelicot's power series of exp). *)
Lemma exp_series : forall y, is_series (fun i => y ^ i / INR (fact i)) (exp y).
Proof.
  intro y. pose proof (is_exp_Reals y) as H. unfold is_pseries in H.
  refine (is_series_ext _ _ _ _ H). intro i. rewrite pow_n_pow.
  unfold scal; simpl; unfold mult; simpl. reflexivity.
Qed.

(** The Cauchy product Σ_j Σ_(i<=j) (y^i/i!)·r^(j−i) = e^y/(1 − r) for 0 <= r < 1, y >= 0. *)
Lemma exp_geom_product : forall r y, 0 <= r < 1 -> 0 <= y ->
  is_series (fun j => sum_f_R0 (fun i => y ^ i / INR (fact i) * r ^ (j - i)) j) (exp y * / (1 - r)).
Proof.
  intros r y Hr Hy.
  apply (is_series_mult_pos (fun i => y ^ i / INR (fact i)) (fun n => r ^ n)).
  - apply exp_series.
  - apply is_series_geom. rewrite Rabs_pos_eq; lra.
  - intro i. unfold Rdiv. apply Rmult_le_pos; [apply pow_le; exact Hy |].
    left. apply Rinv_0_lt_compat, fact_INR_pos.
  - intro n. apply pow_le. lra.
Qed.

(** The exponential law of the wait from the mixture: an arrival finding c + j present waits for
    j + 1 departures at rate c, an Erlang(j + 1, c) time, which exceeds t with probability
    Σ_(i<=j) e^(−ct)(ct)^i/i!; then Σ_(j>=0) π_(c+j)·Σ_(i<=j) e^(−ct)(ct)^i/i! = C·e^(−(c − a)t). *)
Theorem mmc_wait_survival_mixture : forall a c t, (0 < c)%nat -> 0 <= a < INR c -> 0 <= t ->
  is_series (fun j => mmc_pi a c (c + j) *
                      sum_f_R0 (fun i => exp (- (INR c * t)) * (INR c * t) ^ i / INR (fact i)) j)
    (erlang_c a c * exp (- (INR c - a) * t)).
Proof.
  intros a c t Hc Ha Ht. assert (Hk : 0 < INR c) by (apply lt_0_INR; exact Hc).
  pose proof (mmc_norm_pos a c Hc Ha) as Hz.
  pose proof (ratio_bounds a c Hc Ha) as Hr.
  set (r := a / INR c) in *. set (x := INR c * t).
  assert (Hx : 0 <= r * x) by (unfold x; apply Rmult_le_pos; [lra | apply Rmult_le_pos; lra]).
  set (K := erlang_w a c / mmc_norm a c * exp (- x)).
  pose proof (is_series_scal_r K _ _ (exp_geom_product r (r * x) Hr Hx)) as H.
  replace (erlang_c a c * exp (- (INR c - a) * t)) with (exp (r * x) * / (1 - r) * K).
  - refine (is_series_ext _ _ _ _ H). intro j.
    match goal with |- ?u = ?v => change (@eq R u v) end.
    unfold mmc_pi. rewrite mmc_w_above by lia. replace (c + j - c)%nat with j by lia. fold r.
    rewrite (Rmult_comm (sum_f_R0 _ j) K), scal_sum, scal_sum.
    apply sum_eq. intros i Hi.
    replace (r ^ j) with (r ^ i * r ^ (j - i)) by (rewrite <- pow_add; f_equal; lia).
    rewrite Rpow_mult_distr. unfold K. pose proof (fact_INR_pos i). field. split; lra.
  - rewrite <- (mmc_wait_prob_eq a c Hc Ha). unfold K, x, r.
    replace (- (INR c - a) * t) with (a / INR c * (INR c * t) + - (INR c * t)) by (field; lra).
    rewrite exp_plus. field. repeat split; lra.
Qed.
