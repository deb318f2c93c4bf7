/** The portal's idea of now; tests inject their own to move time without waiting. */
export type Clock = () => Date;
