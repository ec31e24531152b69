"""Vectorised mesh refinement: exact activation regions of a network on a segment, a polygon or a polytope.

The domain (a segment or a convex polygon in domain coordinates ``t``) is kept as a mesh: vertices, edges and
faces, the faces being the current regions. Layer by layer, every neuron of the layer cuts the mesh at each of
its breakpoints: the layer's pre-activations are affine on every current face, so an edge whose ends lie on
opposite sides of a breakpoint gets a new vertex, and a face with vertices on both sides is split along the
chord joining its two crossing points. Faces, edges and vertices are numpy arrays and each cut is done for all
faces at once. In 3-D the regions are cells bounded by polygonal faces, and a crossed cell is split along the
polygon of its faces' chords (:mod:`.mesh_3d`); in higher dimensions every face of every rank is split so, along
its section by the hyperplane (:mod:`.mesh_nd`).

Every sign is decided exactly. Pre-activations are carried at the vertices as doubles with proven error bounds
(:mod:`polyregions.networks._float_filter`); a sign the bound does not prove is decided with integers, from the layer's
exact affine map on the vertex's region and the vertex's exact coordinates. Those coordinates, and the exact
inequalities of every region, come from exact integer lines: every edge lies on the line where one neuron, on
one region of the previous layers, meets one of its breakpoints. Exact affine maps are computed with integers
modulo several word-sized primes (matrix products in double precision, exact below ``2^53``) and recovered by
Chinese remaindering, with enough primes for a proven bound on their size.

Modules: :mod:`.engine` (the entry points), :mod:`.mesh` (the refinement loop shared by all dimensions),
:mod:`.vertex_sides` (the vertices' proven and exact sides), :mod:`.region_maps` (the regions' float maps on deep
networks), :mod:`.mesh_1d`, :mod:`.mesh_2d`, :mod:`.mesh_3d` and :mod:`.mesh_nd` (the splits of intervals, of
polygons, of 3-D cells, faces and edges, and of the faces of every rank in dimension 4 up; :mod:`.polytope_3d` and
:mod:`.polytope_lattice` the domain's faces, :mod:`.cells` the cells' exact geometry),
:mod:`.exact_maps` (exact affine maps by modular arithmetic), :mod:`.support` (shared bits and arrays),
:mod:`.stages` (graph networks as dense networks with the same regions), :mod:`.merged_cells` (their cells of one
stage pattern merged), :mod:`.polygons` (exact vertices, boxes and hulls of 1-D and 2-D domains), :mod:`.ties`
(max units' rounds tied on whole regions, decided from patterns), :mod:`.sparse_layers` (float pre-activations of
sparse layers).
"""

from polyregions.regions._mesh.engine import mesh_regions, refine_mesh

__all__ = ["refine_mesh", "mesh_regions"]
