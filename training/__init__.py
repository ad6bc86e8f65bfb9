"""Training, evaluation and the ``stichzoo`` command, on top of the games and the bots.

What lives where:

- the command and its recipes: ``cli`` (``stichzoo``), ``config`` (one YAML recipe per run,
  checked strictly, ``extends:`` for variants), ``runs`` (a run folder), ``train`` (a
  config's ``algo`` picks the trainer), ``export`` (a run as an ONNX bot), ``checkpoints``
  (a run's checkpoints as bots), ``tags`` (one TensorBoard vocabulary);
- ``trainers/``: all-seat PPO on the batch engine, its warm start, expert iteration and
  their pipeline, Stable-Baselines3's MaskablePPO;
- ``fit/``: ``stichzoo fit`` - the fitters of shipped models that are not bots (the Wizard
  bid model, Hoch & Tief's leaf value, Silberne Ananas' tricks to come);
- ``evaluation/``: duplicate tournaments, their statistics and reports, the ladder, think
  time, datasets of played games, a run's own evaluations;
- ``gym/``: the Gymnasium, Stable-Baselines3 and vector faces of the games;
- ``rllib/``: the same recipes on Ray's RLlib (its own venv);
- ``lab/``: levers tried and not shipped (not installed; ``python -m stichzoo.training.lab``).
"""
