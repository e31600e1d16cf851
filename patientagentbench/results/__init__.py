"""What a run's traces mean: correctness per trace (`scoring`), metrics per cell (`cells`),
and the run's whole analysis with its tables and figures (`study`)."""
