** Cantilever of length 1000 mm, clamped at node 1, loaded at its tip (node 21) by a
** force in -y that follows a transient amplitude (peak {{F}} N at t = 0.5 s), applied
** quasi-statically in 10 increments (NLGEOM: ccx solves a linear static step in one increment). Units: N, mm, MPa, t/mm^3.
** Template of the sao study mass.json: the placeholders are replaced for every run.
*HEADING
cantilever beam, width {{w:.8f}} mm, height {{h:.8f}} mm
*NODE
1,0,0,0
2,50,0,0
3,100,0,0
4,150,0,0
5,200,0,0
6,250,0,0
7,300,0,0
8,350,0,0
9,400,0,0
10,450,0,0
11,500,0,0
12,550,0,0
13,600,0,0
14,650,0,0
15,700,0,0
16,750,0,0
17,800,0,0
18,850,0,0
19,900,0,0
20,950,0,0
21,1000,0,0
*ELEMENT,TYPE=B32R,ELSET=EBEAM
1,1,2,3
2,3,4,5
3,5,6,7
4,7,8,9
5,9,10,11
6,11,12,13
7,13,14,15
8,15,16,17
9,17,18,19
10,19,20,21
*NSET,NSET=TIP
21
*BOUNDARY
1,1,6
*MATERIAL,NAME=STEEL
*ELASTIC
{{E:.1f}},0.3
*BEAM SECTION,ELSET=EBEAM,MATERIAL=STEEL,SECTION=RECT
** width (section direction 1 = global z), height (direction 2 = global y)
{{w:.8f}},{{h:.8f}}
0.,0.,1.
*AMPLITUDE,NAME=PULSE
0.,0.,0.5,1.,1.,0.4
*STEP,NLGEOM
*STATIC,DIRECT
0.1,1.
*CLOAD,AMPLITUDE=PULSE
21,2,-{{F:.1f}}
*NODE PRINT,NSET=TIP
U
*END STEP
