(** Server-side mechanisms, retries off, Poisson arrivals of rate λ (analytic/rows.hpp).
    - ALOHA over M rows (`collision`): each row sees a Poisson stream of rate λ/M (thinning, cited),
      so the goodput is M copies of Aloha.v's aloha at λ/M: λ e^(−2λ/M), maximum M/(2e) at M/2.
    - First-commit-wins over M rows (`free`): M copies of Occ.v's M/D/1/1 loss system at λ/M:
      λ/(1+λ/M), at most min(λ, M), nondecreasing in M.
    - FIFO lock on one row: M/G/1 FIFO with E[S] = 1, E[S²] = m2, the Pollaczek–Khinchine mean
      W = 1 + λ m2/(2(1−λ)), by the mean-value argument. Its premises are hypotheses of the
      theorems, not axioms: Little's law for the queue (Lq = λ Wq) and, by PASTA, the mean residual
      service seen by an arrival, λ E[S²]/2 (cited: Kleinrock, "Queueing Systems" vol. 1, 1975, §5.6).
    - Exponential service of mean 1: ∫ t e^(−t) = 1 and ∫ t² e^(−t) = 2 over [0, ∞) (proved).
    - Lognormal service of the engine (σ = √ln(1+cv²), μ = −σ²/2): from the moment formula
      E[e^(kX)] = e^(kμ + k²σ²/2) for X normal (cited), mean 1 and E[S²] = 1 + cv².
    - Client timeout τ behind the lock, exponential service (one attempt per client): the M/M/1
      FIFO time in system is Exp(1 − λ) (cited), so P(lost) = ∫_τ^∞ (1−λ)e^(−(1−λ)t) dt
      = e^(−(1−λ)τ) (improper integral, proved), in (0, 1], decreasing in τ, increasing in λ.
    Backs analytic goodput(AlohaRows), goodput(FreeRows), mean_wait/mean_time(FifoQueue),
    loss_probability(FifoTimeout), service_second_moment_* (validation cases aloha-rows, occ-rows, mm1-lock, md1-lock,
    mg1-lock-lognormal). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Aloha Occ Ps.
Open Scope R_scope.

(** The code's forms (analytic/rows.cpp): rate * exp(-2 rate / rows), rate / (1 + rate / rows),
    rate * m2 / (2 (1 - rate)), 1 + mean_wait. *)
Definition aloha_rows (M lambda : R) : R := lambda * exp (-2 * lambda / M).
Definition occ_rows (M lambda : R) : R := lambda / (1 + lambda / M).
Definition pk_wait (lambda m2 : R) : R := lambda * m2 / (2 * (1 - lambda)).
Definition pk_time (lambda m2 : R) : R := 1 + pk_wait lambda m2.

(** * ALOHA over M rows *)

Lemma aloha_rows_scale : forall M lambda, 0 < M -> aloha_rows M lambda = M * aloha (lambda / M).
Proof.
  intros M lambda HM. unfold aloha_rows, aloha.
  replace (-2 * (lambda / M)) with (-2 * lambda / M) by (field; lra).
  field. lra.
Qed.

(** M copies of ALOHA at rate λ/M: goodput M·(λ/M)e^(−2λ/M) = λe^(−2λ/M), and the success
    probability of one attempt, e^(−2λ/M), is ALOHA's e^(−2G) at G = λ/M. *)
Theorem aloha_rows_goodput : forall M lambda, 0 < M ->
  M * aloha (lambda / M) = aloha_rows M lambda /\
  exp (-2 * (lambda / M)) = exp (-2 * lambda / M) /\
  aloha_rows M lambda = lambda * exp (-2 * lambda / M).
Proof.
  intros M lambda HM. split; [| split].
  - symmetry. apply aloha_rows_scale, HM.
  - f_equal. field. lra.
  - reflexivity.
Qed.

(** Maximum M/(2e), reached at λ = M/2 and only there (Aloha.v's aloha_max scaled by M). *)
Theorem aloha_rows_max : forall M lambda, 0 < M ->
  aloha_rows M lambda <= aloha_rows M (M / 2) /\
  aloha_rows M (M / 2) = M / (2 * exp 1) /\
  (lambda <> M / 2 -> aloha_rows M lambda < aloha_rows M (M / 2)).
Proof.
  intros M lambda HM.
  rewrite !(aloha_rows_scale M) by exact HM.
  replace (M / 2 / M) with (1 / 2) by (field; lra).
  destruct (aloha_max (lambda / M)) as [Hle [Hval Hlt]].
  split; [| split].
  - apply Rmult_le_compat_l; lra.
  - rewrite Hval. field. apply Rgt_not_eq, exp_pos.
  - intro Hne. apply Rmult_lt_compat_l; [exact HM |]. apply Hlt.
    intro Heq. apply Hne. apply (Rmult_eq_reg_r (/ M)); [| apply Rinv_neq_0_compat; lra].
    unfold Rdiv in Heq. rewrite Heq. field. lra.
Qed.

(** Increasing on [0, M/2], decreasing on [M/2, ∞) (Aloha.v's monotonicity scaled). *)
Theorem aloha_rows_monotone : forall M x y, 0 < M ->
  (0 <= x -> x < y -> y <= M / 2 -> aloha_rows M x < aloha_rows M y) /\
  (M / 2 <= x -> x < y -> aloha_rows M y < aloha_rows M x).
Proof.
  intros M x y HM.
  rewrite !(aloha_rows_scale M) by exact HM.
  assert (Hd : forall u v, u < v -> u / M < v / M).
  { intros u v Huv. unfold Rdiv. apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat |]; lra. }
  assert (Hdle : forall u v, u <= v -> u / M <= v / M).
  { intros u v Huv. unfold Rdiv. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat |]; lra. }
  split.
  - intros Hx Hxy Hy. apply Rmult_lt_compat_l; [exact HM |].
    apply aloha_increasing.
    + replace 0 with (0 / M) by (field; lra). apply Hdle, Hx.
    + apply Hd, Hxy.
    + replace (1 / 2) with (M / 2 / M) by (field; lra). apply Hdle, Hy.
  - intros Hx Hxy. apply Rmult_lt_compat_l; [exact HM |].
    apply aloha_decreasing.
    + replace (1 / 2) with (M / 2 / M) by (field; lra). apply Hdle, Hx.
    + apply Hd, Hxy.
Qed.

(** * First-commit-wins over M rows *)

(** M copies of the M/D/1/1 loss system at rate λ/M: M·((λ/M)/(1+λ/M)) = λ/(1+λ/M). *)
Theorem occ_rows_goodput : forall M lambda, 0 < M -> 0 <= lambda ->
  M * occ_goodput (lambda / M) = occ_rows M lambda.
Proof.
  intros M lambda HM Hl. unfold occ_goodput, occ_rows.
  assert (0 <= lambda / M) by (apply Rdiv_le_0_compat; lra).
  field. lra.
Qed.

(** 0 <= goodput <= min(λ, M), strictly below M, and strictly below λ when λ > 0 (Occ.v's
    occ_bounds scaled). *)
Theorem occ_rows_bounds : forall M lambda, 0 < M -> 0 <= lambda ->
  0 <= occ_rows M lambda <= Rmin lambda M /\ occ_rows M lambda < M /\
  (0 < lambda -> occ_rows M lambda < lambda).
Proof.
  intros M lambda HM Hl.
  assert (Hq : 0 <= lambda / M) by (apply Rdiv_le_0_compat; lra).
  rewrite <- (occ_rows_goodput M lambda HM Hl).
  destruct (occ_bounds (lambda / M) Hq) as [[H0 H1] Hlt].
  assert (HltM : M * occ_goodput (lambda / M) < M) by nra.
  assert (Hlel : M * occ_goodput (lambda / M) <= lambda).
  { unfold occ_goodput.
    replace (M * (lambda / M / (1 + lambda / M))) with (lambda * / (1 + lambda / M)) by (field; lra).
    assert (/ (1 + lambda / M) <= 1).
    { rewrite <- Rinv_1. apply Rinv_le_contravar; lra. }
    nra. }
  split; [split; [nra |] | split; [exact HltM |]].
  - unfold Rmin. destruct (Rle_dec lambda M); lra.
  - intro Hp. unfold occ_goodput.
    replace (M * (lambda / M / (1 + lambda / M))) with (lambda * / (1 + lambda / M)) by (field; lra).
    assert (0 < lambda / M) by (apply Rdiv_lt_0_compat; lra).
    assert (/ (1 + lambda / M) < 1).
    { rewrite <- Rinv_1. apply Rinv_lt_contravar; lra. }
    nra.
Qed.

(** More rows, more goodput: for 0 < M1 <= M2, λ/(1+λ/M1) <= λ/(1+λ/M2), strictly when λ > 0 and
    M1 < M2. *)
Theorem occ_rows_monotone : forall M1 M2 lambda, 0 < M1 -> M1 <= M2 -> 0 <= lambda ->
  occ_rows M1 lambda <= occ_rows M2 lambda /\
  (0 < lambda -> M1 < M2 -> occ_rows M1 lambda < occ_rows M2 lambda).
Proof.
  intros M1 M2 lambda H1 H12 Hl. unfold occ_rows.
  assert (HM2 : 0 < M2) by lra.
  (* λ/(1+λ/M) = λM/(M+λ) *)
  replace (lambda / (1 + lambda / M1)) with (lambda * M1 / (M1 + lambda)) by (field; lra).
  replace (lambda / (1 + lambda / M2)) with (lambda * M2 / (M2 + lambda)) by (field; lra).
  assert (Hdiff : lambda * M2 / (M2 + lambda) - lambda * M1 / (M1 + lambda)
                  = lambda * lambda * (M2 - M1) / ((M1 + lambda) * (M2 + lambda))) by (field; lra).
  assert (Hden : 0 < (M1 + lambda) * (M2 + lambda)) by nra.
  split.
  - assert (0 <= lambda * lambda * (M2 - M1) / ((M1 + lambda) * (M2 + lambda))); [| lra].
    apply Rdiv_le_0_compat; [| exact Hden].
    apply Rmult_le_pos; [nra | lra].
  - intros Hp Hlt.
    assert (0 < lambda * lambda * (M2 - M1) / ((M1 + lambda) * (M2 + lambda))); [| lra].
    apply Rdiv_lt_0_compat; [| exact Hden].
    apply Rmult_lt_0_compat; [nra | lra].
Qed.

(** Strictly increasing in λ >= 0 for fixed M (Occ.v's occ_increasing scaled). *)
Theorem occ_rows_increasing : forall M x y, 0 < M -> 0 <= x -> x < y ->
  occ_rows M x < occ_rows M y.
Proof.
  intros M x y HM Hx Hxy.
  rewrite <- (occ_rows_goodput M x HM Hx), <- (occ_rows_goodput M y HM ltac:(lra)).
  apply Rmult_lt_compat_l; [exact HM |]. apply occ_increasing.
  - apply Rdiv_le_0_compat; lra.
  - unfold Rdiv. apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat |]; lra.
Qed.

(** * FIFO lock: M/G/1 FIFO, Pollaczek–Khinchine *)

(** The mean-value derivation, E[S] = 1, E[S²] = m2. An arrival waits for the Lq jobs queued
    ahead of it (each needs E[S] = 1) plus the residual service Res of the job in service:
    Wq = Lq·1 + Res. Premises: Little's law for the queue, Lq = λ Wq, and the mean residual service
    seen by a Poisson arrival (PASTA), Res = λ m2/2. Then Wq = λ m2/(2(1−λ)); and the formula does
    satisfy the premises (so they are consistent). *)
Theorem pk_mean_value : forall lambda m2 Wq Lq Res : R,
  0 <= lambda < 1 -> 1 <= m2 ->
  Lq = lambda * Wq -> Res = lambda * m2 / 2 -> Wq = Lq * 1 + Res ->
  Wq = pk_wait lambda m2 /\
  pk_wait lambda m2 = (lambda * pk_wait lambda m2) * 1 + lambda * m2 / 2.
Proof.
  intros lambda m2 Wq Lq Res Hl Hm HLq HRes HWq. unfold pk_wait. split.
  - subst Lq Res. apply (Rmult_eq_reg_r (2 * (1 - lambda))); [| lra].
    unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
    replace (Wq * (2 * (1 - lambda))) with (2 * Wq - 2 * (lambda * Wq)) by ring.
    rewrite Rmult_1_r in HWq. lra.
  - field. lra.
Qed.

(** Mean time in system: W = E[S] + Wq = 1 + λ m2/(2(1−λ)). *)
Theorem pk_mean_time : forall lambda m2 Wq Lq Res W : R,
  0 <= lambda < 1 -> 1 <= m2 ->
  Lq = lambda * Wq -> Res = lambda * m2 / 2 -> Wq = Lq * 1 + Res -> W = 1 + Wq ->
  W = pk_time lambda m2 /\ pk_time lambda m2 = 1 + lambda * m2 / (2 * (1 - lambda)).
Proof.
  intros lambda m2 Wq Lq Res W Hl Hm HLq HRes HWq HW.
  destruct (pk_mean_value lambda m2 Wq Lq Res Hl Hm HLq HRes HWq) as [HWq' _].
  split; [unfold pk_time; rewrite HW, HWq'; reflexivity | reflexivity].
Qed.

(** Exponential service (m2 = 2): W = 1/(1−λ), the M/M/1 time in system; for λ > 0 it is Ps.v's
    N/λ with N = ρ/(1−ρ), ρ = λ, x = 1 (ps_mean_time). *)
Theorem pk_mm1 : forall lambda, 0 <= lambda < 1 ->
  pk_time lambda 2 = 1 / (1 - lambda) /\
  (0 < lambda -> (lambda / (1 - lambda)) / (lambda / 1) = pk_time lambda 2).
Proof.
  intros lambda Hl.
  assert (Hw : pk_time lambda 2 = 1 / (1 - lambda)) by (unfold pk_time, pk_wait; field; lra).
  split; [exact Hw |].
  intro Hp. rewrite Hw.
  destruct (ps_mean_time 1 lambda ltac:(lra) ltac:(lra)) as [_ Hps].
  exact Hps.
Qed.

(** Deterministic service (m2 = 1): W = (2−λ)/(2(1−λ)), the M/D/1 time in system. *)
Theorem pk_md1 : forall lambda, 0 <= lambda < 1 ->
  pk_time lambda 1 = (2 - lambda) / (2 * (1 - lambda)).
Proof. intros lambda Hl. unfold pk_time, pk_wait. field. lra. Qed.

(** W increases strictly with λ on [0, 1) (m2 >= 1), and with m2 (strictly when λ > 0). *)
Theorem pk_monotone : forall lambda1 lambda2 m2 m2',
  0 <= lambda1 -> lambda1 < lambda2 -> lambda2 < 1 -> 1 <= m2 -> m2 <= m2' ->
  pk_time lambda1 m2 < pk_time lambda2 m2 /\
  pk_time lambda1 m2 <= pk_time lambda1 m2' /\
  (0 < lambda1 -> m2 < m2' -> pk_time lambda1 m2 < pk_time lambda1 m2').
Proof.
  intros l1 l2 m2 m2' H1 H12 H2 Hm Hmm. unfold pk_time, pk_wait.
  assert (Hd1 : 0 < 1 - l1) by lra.
  assert (Hd2 : 0 < 1 - l2) by lra.
  split; [| split].
  - (* l1/(1−l1) < l2/(1−l2) since l1 (1−l2) < l2 (1−l1) *)
    assert (Hdiff : l2 * m2 / (2 * (1 - l2)) - l1 * m2 / (2 * (1 - l1))
                    = m2 * (l2 - l1) / (2 * ((1 - l1) * (1 - l2)))) by (field; lra).
    assert (0 < m2 * (l2 - l1) / (2 * ((1 - l1) * (1 - l2)))); [| lra].
    apply Rdiv_lt_0_compat; [nra |]. nra.
  - assert (Hdiff : l1 * m2' / (2 * (1 - l1)) - l1 * m2 / (2 * (1 - l1))
                    = l1 * (m2' - m2) / (2 * (1 - l1))) by (field; lra).
    assert (0 <= l1 * (m2' - m2) / (2 * (1 - l1))); [| lra].
    apply Rdiv_le_0_compat; [nra | lra].
  - intros Hp Hlt.
    assert (Hdiff : l1 * m2' / (2 * (1 - l1)) - l1 * m2 / (2 * (1 - l1))
                    = l1 * (m2' - m2) / (2 * (1 - l1))) by (field; lra).
    assert (0 < l1 * (m2' - m2) / (2 * (1 - l1))); [| lra].
    apply Rdiv_lt_0_compat; [nra | lra].
Qed.

(** * Service distributions with mean 1 *)

(** The antiderivative of t² e^(−t). *)
Definition exp_second_primitive (t : R) : R := - (t ^ 2 + 2 * t + 2) * exp (- t).

Lemma exp_second_primitive_derive : forall t,
  is_derive exp_second_primitive t (t ^ 2 * exp (- t)).
Proof. intro t. unfold exp_second_primitive. auto_derive; [exact I | ring]. Qed.

Lemma exp_second_primitive_lim : is_lim exp_second_primitive p_infty 0.
Proof.
  (* t² e^(−t) = 4 ((t/2)/e^(t/2))², t e^(−t) and e^(−t) tend to 0 *)
  assert (Hh : is_lim (fun t => (t / 2) / exp (t / 2)) p_infty 0).
  { refine (is_lim_ext (fun t => (fun y => y / exp y) (/ 2 * t)) _ _ _ _
              (lim_scale (fun y => y / exp y) 0 (/ 2) ltac:(lra) lim_y_over_exp)).
    intro t. cbv beta. replace (/ 2 * t) with (t / 2) by field. reflexivity. }
  assert (Hs : is_lim (fun t => 4 * ((t / 2) / exp (t / 2) * ((t / 2) / exp (t / 2)))
                                + 2 * (t / exp t) + 2 * / exp t) p_infty 0).
  { replace (Finite 0) with (Finite (4 * (0 * 0) + 2 * 0 + 2 * 0)) by (f_equal; ring).
    apply is_lim_plus'; [apply is_lim_plus' |].
    - apply (is_lim_scal_l _ 4 p_infty (0 * 0)).
      apply (is_lim_mult _ _ p_infty 0 0 Hh Hh). exact I.
    - apply (is_lim_scal_l _ 2 p_infty 0). exact lim_y_over_exp.
    - apply (is_lim_scal_l _ 2 p_infty 0). exact lim_inv_exp. }
  pose proof (is_lim_opp _ _ _ Hs) as H. simpl Rbar_opp in H. rewrite Ropp_0 in H.
  refine (is_lim_ext_loc _ _ _ _ _ H).
  exists 0. intros t _. unfold exp_second_primitive. rewrite exp_Ropp.
  assert (He : exp t = exp (t / 2) * exp (t / 2)) by (rewrite <- exp_plus; f_equal; field).
  pose proof (exp_pos (t / 2)). rewrite He. field. lra.
Qed.

(** Exponential service of mean 1 (the engine's `exponential`): ∫_0^∞ t e^(−t) dt = 1 (Occ.v's
    exp_mean at λ = 1) and E[S²] = ∫_0^∞ t² e^(−t) dt = 2, what service_second_moment_exponential
    returns (improper integrals at +∞). *)
Theorem exp_second_moment :
  is_RInt_gen (fun t => t * exp (- t)) (at_point 0) (Rbar_locally p_infty) 1 /\
  is_RInt_gen (fun t => t ^ 2 * exp (- t)) (at_point 0) (Rbar_locally p_infty) 2.
Proof.
  split.
  { pose proof (exp_mean 1 Rlt_0_1) as H. rewrite Rinv_1 in H.
    refine (is_RInt_gen_ext _ _ _ _ H).
    exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
    intros a b _ _ x _. rewrite Rmult_1_l. do 2 f_equal. ring. }
  assert (Hd : is_RInt_gen (Derive exp_second_primitive) (at_point 0) (Rbar_locally p_infty)
                 (0 - exp_second_primitive 0)).
  { apply is_RInt_gen_Derive.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _. eexists. apply exp_second_primitive_derive.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _.
      apply (continuous_ext_loc _ (fun t => t ^ 2 * exp (- t))).
      + apply filter_forall. intro y. symmetry. apply is_derive_unique, exp_second_primitive_derive.
      + apply (ex_derive_continuous (V := R_NormedModule)). auto_derive. exact I.
    - apply filterlim_at_point_self.
    - exact exp_second_primitive_lim. }
  replace 2 with (0 - exp_second_primitive 0)
    by (unfold exp_second_primitive; rewrite Ropp_0, exp_0; ring).
  refine (is_RInt_gen_ext _ _ _ _ Hd).
  exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
  intros a b _ _ x _. apply is_derive_unique, exp_second_primitive_derive.
Qed.
(** E[S^k] of S = e^X, X normal with mean μ and variance σ²: e^(kμ + k²σ²/2) (cited: the normal
    moment generating function). *)
Definition lognormal_moment (mu sigma : R) (k : R) : R := exp (k * mu + k * k * sigma ^ 2 / 2).

(** The engine's lognormal (σ = √ln(1+cv²), μ = −σ²/2; montecarlo/server_engine.hpp) has mean 1
    and second moment 1 + cv², what service_second_moment_lognormal returns; σ² = ln(1+cv²). *)
Theorem lognormal_second_moment : forall cv, 0 <= cv ->
  let sigma := sqrt (ln (1 + cv ^ 2)) in
  let mu := - (sigma ^ 2) / 2 in
  sigma ^ 2 = ln (1 + cv ^ 2) /\
  lognormal_moment mu sigma 1 = 1 /\ lognormal_moment mu sigma 2 = 1 + cv ^ 2.
Proof.
  intros cv Hcv sigma mu.
  assert (Hpos : 0 < 1 + cv ^ 2) by (pose proof (pow2_ge_0 cv); lra).
  assert (Hln : 0 <= ln (1 + cv ^ 2)).
  { rewrite <- ln_1. apply ln_le; [lra | pose proof (pow2_ge_0 cv); lra]. }
  assert (Hs : sigma ^ 2 = ln (1 + cv ^ 2)).
  { unfold sigma. replace (sqrt (ln (1 + cv ^ 2)) ^ 2) with (sqrt (ln (1 + cv ^ 2)) * sqrt (ln (1 + cv ^ 2))) by ring.
    apply sqrt_sqrt, Hln. }
  unfold lognormal_moment, mu. clearbody sigma. split; [exact Hs | split].
  - assert (E : 1 * (- sigma ^ 2 / 2) + 1 * 1 * sigma ^ 2 / 2 = 0) by lra.
    rewrite E. apply exp_0.
  - assert (E : 2 * (- sigma ^ 2 / 2) + 2 * 2 * sigma ^ 2 / 2 = ln (1 + cv ^ 2)) by lra.
    rewrite E. apply exp_ln, Hpos.
Qed.

(** * FIFO lock with a client timeout: M/M/1 FIFO, P(W > τ) *)

(** The M/M/1 FIFO time in system W (exponential service of mean 1, arrival rate λ < 1, every job
    served, whether its client is still waiting or not) is exponential with rate 1 − λ: an arrival
    finding n jobs (P = (1−λ)λ^n by PASTA, Ps.v's mm1_pi) stays for n + 1 Exp(1) services
    (memorylessness), and a geometric sum of exponentials is exponential. That fact is **cited**
    (Kleinrock, "Queueing Systems" vol. 1, 1975, ch. 5, the M/G/1 system time with exponential
    service), not proved: the density below is a definition. The loss probability is the code's
    form (analytic/rows.cpp): exp(-(1 - rate) * timeout). *)
Definition mm1_sojourn_density (lambda t : R) : R := (1 - lambda) * exp (- (1 - lambda) * t).
Definition mm1_loss (lambda tau : R) : R := exp (- (1 - lambda) * tau).

(** The antiderivative of the sojourn density. *)
Definition mm1_sojourn_primitive (lambda t : R) : R := - exp (- (1 - lambda) * t).

Lemma mm1_sojourn_primitive_derive : forall lambda t,
  is_derive (mm1_sojourn_primitive lambda) t (mm1_sojourn_density lambda t).
Proof.
  intros lambda t. unfold mm1_sojourn_primitive, mm1_sojourn_density.
  auto_derive; [exact I | ring].
Qed.

Lemma mm1_sojourn_primitive_lim : forall lambda, lambda < 1 ->
  is_lim (mm1_sojourn_primitive lambda) p_infty 0.
Proof.
  intros lambda Hl.
  pose proof (lim_scale (fun y => / exp y) 0 (1 - lambda) ltac:(lra) lim_inv_exp) as H.
  pose proof (is_lim_opp _ _ _ H) as H'. simpl Rbar_opp in H'. rewrite Ropp_0 in H'.
  refine (is_lim_ext _ _ _ _ _ H').
  intro t. cbv beta. unfold mm1_sojourn_primitive.
  replace (- (1 - lambda) * t) with (- ((1 - lambda) * t)) by ring.
  rewrite exp_Ropp. reflexivity.
Qed.

(** A client with timeout τ is lost iff W > τ: P(W > τ) = ∫_τ^∞ (1−λ) e^(−(1−λ)t) dt
    = e^(−(1−λ)τ) (improper integral at +∞), what loss_probability(FifoTimeout) returns. *)
Theorem mm1_timeout_loss : forall lambda tau, 0 <= lambda < 1 -> 0 <= tau ->
  is_RInt_gen (mm1_sojourn_density lambda) (at_point tau) (Rbar_locally p_infty)
    (mm1_loss lambda tau).
Proof.
  intros lambda tau Hl Ht.
  assert (Hd : is_RInt_gen (Derive (mm1_sojourn_primitive lambda)) (at_point tau)
                 (Rbar_locally p_infty) (0 - mm1_sojourn_primitive lambda tau)).
  { apply is_RInt_gen_Derive.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _. eexists. apply mm1_sojourn_primitive_derive.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _.
      apply (continuous_ext_loc _ (mm1_sojourn_density lambda)).
      + apply filter_forall. intro y. symmetry.
        apply is_derive_unique, mm1_sojourn_primitive_derive.
      + unfold mm1_sojourn_density.
        apply (ex_derive_continuous (V := R_NormedModule)). auto_derive. exact I.
    - apply filterlim_at_point_self.
    - apply mm1_sojourn_primitive_lim. lra. }
  replace (mm1_loss lambda tau) with (0 - mm1_sojourn_primitive lambda tau)
    by (unfold mm1_loss, mm1_sojourn_primitive; ring).
  refine (is_RInt_gen_ext _ _ _ _ Hd).
  exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
  intros a b _ _ x _. apply is_derive_unique, mm1_sojourn_primitive_derive.
Qed.

Lemma exp_le_mono : forall x y, x <= y -> exp x <= exp y.
Proof.
  intros x y [Hlt | Heq]; [left; apply exp_increasing, Hlt | right; rewrite Heq; reflexivity].
Qed.

(** 0 < P(lost) <= 1 (< 1 for τ > 0; τ = 0 gives e^0 = 1), strictly decreasing in τ,
    nondecreasing in λ on [0, 1) and strictly increasing in λ when τ > 0. *)
Theorem mm1_timeout_loss_bounds : forall lambda tau, 0 <= lambda < 1 -> 0 <= tau ->
  0 < mm1_loss lambda tau <= 1 /\
  (0 < tau -> mm1_loss lambda tau < 1) /\
  (forall tau', tau < tau' -> mm1_loss lambda tau' < mm1_loss lambda tau) /\
  (forall lambda', lambda <= lambda' < 1 -> mm1_loss lambda tau <= mm1_loss lambda' tau) /\
  (0 < tau -> forall lambda', lambda < lambda' < 1 -> mm1_loss lambda tau < mm1_loss lambda' tau).
Proof.
  intros lambda tau Hl Ht. unfold mm1_loss.
  split; [split; [apply exp_pos |] | split; [| split; [| split]]].
  - apply (Rle_trans _ (exp 0)); [apply exp_le_mono; nra | rewrite exp_0; lra].
  - intro Hp. apply (Rlt_le_trans _ (exp 0)); [apply exp_increasing; nra | rewrite exp_0; lra].
  - intros tau' Htt. apply exp_increasing. nra.
  - intros lambda' Hll. apply exp_le_mono. nra.
  - intros Hp lambda' Hll. apply exp_increasing. nra.
Qed.
