"""The plumbing every layer stands on, below the exact numbers: lazy fronts (:mod:`~.lazy`), limits on what an
input may declare (:mod:`~.limits`), reading input files safely (:mod:`~.input_files`), atomic writes and output
locks (:mod:`~.atomic`), progress bars (:mod:`~.progress`), signals (:mod:`~.signals`), process pools and Dask
clusters (:mod:`~.pools`, :mod:`~.dask_clusters`), the runtime's threads and collector (:mod:`~.runtime`), and the
tables notebooks show (:mod:`~.display`). Nothing here knows a network, a domain or a region."""
