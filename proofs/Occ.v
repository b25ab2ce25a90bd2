(** First-commit-wins with free failures, retries off (analytic/occ.hpp): the M/D/1/1 loss system.
    Renewal cycle: an idle time Exp(λ) of mean 1/λ (proved below as an improper integral), then a
    busy period of exactly 1 during which arrivals fail at no cost. By the renewal-reward theorem
    (cited: one success per cycle, cycle mean 1/λ + 1) the goodput is 1/(1/λ + 1) = λ/(1+λ), and by
    PASTA (cited: Poisson arrivals see time averages) an arrival succeeds with the idle fraction
    (1/λ)/(1/λ + 1) = 1/(1+λ). The two cited theorems are assumptions of the model, not Coq axioms.
    Backs analytic occ goodput (validation case occ_goodput). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

Definition occ_goodput (lambda : R) : R := lambda / (1 + lambda).

Lemma filterlim_at_point_self : forall (f : R -> R) a, filterlim f (at_point a) (locally (f a)).
Proof. intros f a P HP. unfold at_point. exact (locally_singleton _ _ HP). Qed.

Lemma lim_y_over_exp : is_lim (fun y => y / exp y) p_infty 0.
Proof.
  assert (H : is_lim (fun y => / (exp y / y)) p_infty (Rbar_inv p_infty)).
  { apply is_lim_inv; [exact is_lim_div_exp_p | discriminate]. }
  refine (is_lim_ext_loc _ _ _ _ _ H).
  exists 0. intros y Hy. pose proof (exp_pos y). field. lra.
Qed.

Lemma lim_inv_exp : is_lim (fun y => / exp y) p_infty 0.
Proof.
  replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
  apply is_lim_inv; [exact is_lim_exp_p | discriminate].
Qed.

Lemma lim_scale : forall (f : R -> R) l lambda, 0 < lambda ->
  is_lim f p_infty l -> is_lim (fun t => f (lambda * t)) p_infty l.
Proof.
  intros f l lambda Hl Hf. apply (is_lim_comp f (fun t => lambda * t) p_infty l p_infty Hf).
  - replace p_infty with (Rbar_mult lambda p_infty) at 2.
    + apply is_lim_scal_l, is_lim_id.
    + simpl. destruct (Rle_dec 0 lambda); [| lra].
      destruct (Rle_lt_or_eq_dec 0 lambda r); [reflexivity | lra].
  - exists 0. intros x _. discriminate.
Qed.

(** The antiderivative of t λ e^(−λt). *)
Definition exp_mean_primitive (lambda t : R) : R := - (t + / lambda) * exp (- lambda * t).

Lemma exp_mean_primitive_derive : forall lambda t, 0 < lambda ->
  is_derive (exp_mean_primitive lambda) t (t * (lambda * exp (- lambda * t))).
Proof.
  intros lambda t Hl. unfold exp_mean_primitive. auto_derive; [exact I | field; lra].
Qed.

Lemma exp_mean_primitive_lim : forall lambda, 0 < lambda ->
  is_lim (exp_mean_primitive lambda) p_infty 0.
Proof.
  intros lambda Hl.
  assert (H : is_lim (fun t => - / lambda * ((lambda * t) / exp (lambda * t)) - / lambda * / exp (lambda * t))
                p_infty (- / lambda * 0 - / lambda * 0)).
  { apply is_lim_minus'.
    - apply (is_lim_scal_l _ (- / lambda) p_infty 0).
      exact (lim_scale (fun y => y / exp y) 0 lambda Hl lim_y_over_exp).
    - apply (is_lim_scal_l _ (/ lambda) p_infty 0).
      exact (lim_scale (fun y => / exp y) 0 lambda Hl lim_inv_exp). }
  replace (- / lambda * 0 - / lambda * 0) with 0 in H by ring.
  refine (is_lim_ext_loc _ _ _ _ _ H).
  exists 0. intros t _. unfold exp_mean_primitive.
  replace (- lambda * t) with (- (lambda * t)) by ring. rewrite exp_Ropp.
  pose proof (exp_pos (lambda * t)). field. lra.
Qed.

(** The mean idle time of the renewal cycle: ∫_0^∞ t λ e^(−λt) dt = 1/λ (improper at +∞). *)
Theorem exp_mean : forall lambda, 0 < lambda ->
  is_RInt_gen (fun t => t * (lambda * exp (- lambda * t))) (at_point 0) (Rbar_locally p_infty) (/ lambda).
Proof.
  intros lambda Hl.
  assert (Hd : is_RInt_gen (Derive (exp_mean_primitive lambda)) (at_point 0) (Rbar_locally p_infty)
                 (0 - exp_mean_primitive lambda 0)).
  { apply is_RInt_gen_Derive.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _. eexists. apply exp_mean_primitive_derive, Hl.
    - exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
      intros a b _ _ x _.
      apply (continuous_ext_loc _ (fun t => t * (lambda * exp (- lambda * t)))).
      + apply filter_forall. intro y. symmetry. apply is_derive_unique, exp_mean_primitive_derive, Hl.
      + apply (ex_derive_continuous (V := R_NormedModule)). auto_derive. exact I.
    - apply filterlim_at_point_self.
    - exact (exp_mean_primitive_lim lambda Hl). }
  replace (/ lambda) with (0 - exp_mean_primitive lambda 0)
    by (unfold exp_mean_primitive; rewrite Rmult_0_r, exp_0; ring).
  refine (is_RInt_gen_ext _ _ _ _ Hd).
  exists (fun _ => True) (fun _ => True); try easy. exists 0. easy.
  intros a b _ _ x _. apply is_derive_unique, exp_mean_primitive_derive, Hl.
Qed.

(** Goodput: one success per renewal cycle of mean 1/λ + 1, the mean idle time being the integral. *)
Theorem occ_throughput : forall lambda, 0 < lambda ->
  is_RInt_gen (fun t => t * (lambda * exp (- lambda * t))) (at_point 0) (Rbar_locally p_infty) (/ lambda) /\
  1 / (/ lambda + 1) = occ_goodput lambda.
Proof.
  intros lambda Hl. split; [apply exp_mean, Hl |]. unfold occ_goodput. field. lra.
Qed.

(** Success probability: the idle fraction of the cycle, 1/(1+λ); and goodput = λ · P(success). *)
Theorem occ_success_probability : forall lambda, 0 < lambda ->
  (/ lambda) / (/ lambda + 1) = 1 / (1 + lambda) /\
  occ_goodput lambda = lambda * (1 / (1 + lambda)).
Proof.
  intros lambda Hl. unfold occ_goodput. split; field; lra.
Qed.

(** Bounds: 0 <= goodput < 1 for λ >= 0, and goodput < λ for λ > 0 (some arrivals fail). *)
Theorem occ_bounds : forall lambda, 0 <= lambda ->
  0 <= occ_goodput lambda < 1 /\ (0 < lambda -> occ_goodput lambda < lambda).
Proof.
  intros lambda Hl. unfold occ_goodput. split; [split |].
  - apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra].
  - apply (Rmult_lt_reg_r (1 + lambda)); [lra |]. unfold Rdiv.
    rewrite Rmult_assoc, Rinv_l by lra. lra.
  - intro Hp. apply (Rmult_lt_reg_r (1 + lambda)); [lra |]. unfold Rdiv.
    rewrite Rmult_assoc, Rinv_l by lra. nra.
Qed.

(** Strictly increasing in λ >= 0. *)
Theorem occ_increasing : forall x y, 0 <= x -> x < y -> occ_goodput x < occ_goodput y.
Proof.
  intros x y Hx Hxy. unfold occ_goodput.
  apply (Rmult_lt_reg_r ((1 + x) * (1 + y))); [nra |].
  replace (x / (1 + x) * ((1 + x) * (1 + y))) with (x * (1 + y)) by (field; lra).
  replace (y / (1 + y) * ((1 + x) * (1 + y))) with (y * (1 + x)) by (field; lra).
  lra.
Qed.
