"""The general engine: exact activation regions in any dimension, by layerwise refinement of convex cells.

Each region of layer l-1 carries the affine map of the layer's input on it; the next layer's neurons pulled back
through that map are hyperplanes, and every hyperplane that meets the region's interior splits it, decided
exactly (by the signs of the cell's vertices, or by exact witnesses and certified linear programs). The regions
found, the adjacency of the complex is read off the cuts or proved at points of the facets.

Modules, each one concept, each importing only from those before it: :mod:`.cells` (the cell record, its
geometry and interior points), :mod:`.facets` (facet points, irredundant rows, which side proves a facet),
:mod:`.cuts` (refining cells by layers: vertex cuts, program splits, argmax parts, siblings and flips),
:mod:`.adjacency` (the facet neighbours: read off the cuts, float guesses proved in integers, certified
programs), :mod:`.workers` (shares of the cells refined in this process, in worker processes or on a Dask
cluster) and :mod:`.refine` (the entry point :func:`~.refine.refine`: the domain's first cell, the methods, the
run).
"""
